/**
 * Command lines under an allow-list (or a permission prompt): parsed with a real shell-syntax parser
 * (shell-quote) into argv, and accepted only when they are one simple command, which then runs
 * without a shell. Anything a shell would do on its own (operators, redirections, substitutions,
 * variables, globbing, variable assignments, comments) is refused with a reason the model can read,
 * rather than passed on literally: the model should learn that it cannot, not get a surprising result.
 */
import { parse, quote } from "shell-quote";
import { wildcardMatch } from "./wildcard.js";

/** A simple command, or why the line is not one. */
export type ParsedCommand = { readonly argv: readonly string[] } | { readonly refusal: string };

/** Marks a `$NAME` / `${NAME}` the parser met (it would otherwise substitute the empty string). */
interface VariableUse {
  readonly variable: string;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
// Control characters other than tab: a line break is the shell's `;`, and NUL cannot reach a program.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** `line` as argv, when it is one simple command. */
export function parseSimpleCommand(line: string): ParsedCommand {
  if (CONTROL.test(line)) return refuse(/[\n\r]/.test(line) ? "a line break" : "a control character");
  // shell-quote keeps backticks as text; a shell would run what they enclose. Refused wherever they
  // stand (quoted or not): a model that wants a literal backtick can do without.
  if (line.includes("`")) return refuse("`` ` `` (command substitution)");
  let entries: ReturnType<typeof parse<VariableUse>>;
  try {
    entries = parse(line, (name: string): VariableUse => ({ variable: name }));
  } catch (error) {
    return { refusal: `The command cannot be read as a shell command (${(error as Error).message}).` };
  }
  const argv: string[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") {
      argv.push(entry);
    } else if ("variable" in entry) {
      return refuse(entry.variable === "" ? "`$` (a substitution)" : `\`$${entry.variable}\` (a variable)`);
    } else if ("comment" in entry) {
      return refuse("`#` (a comment)");
    } else if (entry.op === "glob") {
      return refuse(`the glob \`${entry.pattern}\` (quote it to pass it as it is)`);
    } else {
      return refuse(`\`${entry.op}\``);
    }
  }
  if (argv.length === 0 || argv[0] === "") return { refusal: "The command is empty." };
  if (ASSIGNMENT.test(argv[0]!)) return refuse(`a variable assignment (\`${argv[0]!.split("=")[0]}=\`)`);
  return { argv };
}

/** How an approved argv is shown to a person: quoted so that it reads back as exactly these words. */
export function showCommand(argv: readonly string[]): string {
  return quote(argv);
}

/**
 * Whether `argv` matches an `execute:` pattern. The pattern is split into words the way a command
 * is; a word `*` matches one argument, a trailing `*` word any number of remaining ones (none
 * included), and a `*` inside a word any text within that one argument. A pattern that is not a
 * plain list of words (operators, variables) matches nothing.
 */
export function matchesCommandPattern(pattern: string, argv: readonly string[]): boolean {
  const words = patternWords(pattern);
  if (words === undefined || words.length === 0) return false;
  const rest = words.at(-1) === "*";
  const fixed = rest ? words.slice(0, -1) : words;
  if (rest ? argv.length < fixed.length : argv.length !== fixed.length) return false;
  return fixed.every((word, index) => wildcardMatch(word, argv[index]!));
}

function patternWords(pattern: string): string[] | undefined {
  const words: string[] = [];
  try {
    for (const entry of parse(pattern, (name: string): VariableUse => ({ variable: name }))) {
      if (typeof entry === "string") words.push(entry);
      else if ("op" in entry && entry.op === "glob") words.push(entry.pattern);
      else return undefined;
    }
  } catch {
    return undefined;
  }
  return words;
}

function refuse(what: string): ParsedCommand {
  return {
    refusal: `The command uses ${what}, which an allow-list does not permit: it runs one program with its arguments, without a shell.`,
  };
}
