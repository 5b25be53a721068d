/**
 * Every diagnostic prosec reports, in one place (as Svelte keeps its errors): one function per
 * code, taking what the message names. Phases call these and never build message text themselves.
 *
 * Every code is listed, with its severity and meaning, in `codes.ts` (which docs/diagnostics.md's table is
 * generated from). Sections below are per phase; keep each sorted by code.
 */
import type { SourceRange } from "../ast.js";
import type { CodeOf, DiagnosticCode } from "./codes.js";
import type { Diagnostic, RelatedLocation } from "./diagnostic.js";

function error(
  code: CodeOf<"error">,
  range: SourceRange,
  message: string,
  hint?: string,
  related?: readonly RelatedLocation[],
): Diagnostic {
  return diagnostic(code, "error", range, message, hint, related);
}

function warning(
  code: CodeOf<"warning">,
  range: SourceRange,
  message: string,
  hint?: string,
  related?: readonly RelatedLocation[],
): Diagnostic {
  return diagnostic(code, "warning", range, message, hint, related);
}

function diagnostic(
  code: DiagnosticCode,
  severity: Diagnostic["severity"],
  range: SourceRange,
  message: string,
  hint: string | undefined,
  related: readonly RelatedLocation[] | undefined,
): Diagnostic {
  return {
    code,
    severity,
    message,
    range,
    ...(hint === undefined ? {} : { hint }),
    ...(related === undefined ? {} : { related }),
  };
}

/** Points at another place in the file: the first definition a duplicate repeats, say. */
function at(range: SourceRange, message: string): RelatedLocation[] {
  return [{ message, range }];
}

/** `name` in backticks, as every message quotes source names. */
export function quote(name: string): string {
  // A name can be a whole line of a megabyte: the message shows its start.
  return `\`${name.length > 60 ? `${name.slice(0, 57)}...` : name}\``;
}

// ---------------------------------------------------------------------------------------------
// 1-parse: lexical and syntax errors
// ---------------------------------------------------------------------------------------------

/**
 * Characters that text copied from a word processor, a web page or a chat brings in: curly quotes
 * where a string needs `"`, and spaces that look like spaces (or like nothing) but are not U+0020.
 */
const CURLY_QUOTES = new Set([
  "\u201c",
  "\u201d",
  "\u201e",
  "\u201f",
  "\u2018",
  "\u2019",
  "\u00ab",
  "\u00bb",
  "\u2033",
]);
const INVISIBLE_NAMES: { readonly [character: string]: string } = {
  "\u00a0": "a no-break space",
  "\u200b": "a zero-width space",
  "\u200c": "a zero-width non-joiner",
  "\u200d": "a zero-width joiner",
  "\u2060": "a word joiner",
  "\ufeff": "a byte order mark",
  "\u3000": "an ideographic space",
};

function unexpectedCharacter(range: SourceRange, character: string): Diagnostic {
  if (CURLY_QUOTES.has(character))
    return error(
      "E004",
      range,
      `unexpected character ${quote(character)} (a curly quote)`,
      'write strings between straight quotes, `"like this"`: an editor or a chat app may have curled them',
    );
  if (/^[\s\p{Cf}]$/u.test(character)) {
    const point = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    const name =
      INVISIBLE_NAMES[character] ?? (/\s/.test(character) ? "a space other than U+0020" : "an invisible character");
    return error(
      "E004",
      range,
      `unexpected character ${point} (${name})`,
      "replace it with a plain space, or delete it: text copied from a web page or a chat often brings these",
    );
  }
  return error("E004", range, `unexpected character ${quote(character)}`);
}

export const parseMessages = {
  unterminatedString: (range: SourceRange, triple: boolean) =>
    error(
      "E001",
      range,
      triple ? "unterminated multi-line string" : "unterminated string literal",
      triple
        ? 'close it with `"""` on a line indented no deeper than the line that opened it'
        : 'close it with `"` on the same line',
    ),
  unterminatedDiscretion: (range: SourceRange, delimiter: "**" | "***") =>
    error(
      "E001",
      range,
      `unterminated \`${delimiter}\` condition`,
      delimiter === "**"
        ? "close it with `**` on the same line, or write `***` ... `***` for a condition over several lines"
        : "close it with `***`",
    ),
  unknownEscape: (range: SourceRange, character: string) =>
    error(
      "E002",
      range,
      character === "" ? "a string cannot end with `\\`" : `unknown escape sequence \`\\${character}\``,
      'the escapes are \\\\ \\" \\n \\t \\{ \\}; write \\\\ for a backslash, or use a """raw""" string',
    ),
  unexpectedCharacter: (range: SourceRange, character: string) => unexpectedCharacter(range, character),
  unexpectedToken: (range: SourceRange, found: string, expected: readonly string[], keyword?: string) =>
    error(
      "E004",
      range,
      expected.length > 0 ? `unexpected ${found}: expected ${oneOf(expected)}` : `unexpected ${found}`,
      keyword === undefined ? undefined : `did you mean ${quote(keyword)}?`,
    ),
  expectedColon: (range: SourceRange, after: string, found: string, isPropertyLine: boolean) =>
    error(
      "E004",
      range,
      `expected \`:\` after ${quote(after)}, found ${found}`,
      isPropertyLine ? "lines indented under an agent or a session are its properties: `name: value`" : undefined,
    ),
  missingBlockColon: (range: SourceRange, construct: string) =>
    error("E004", range, `expected \`:\` after ${construct}`, "a line that opens an indented block ends with `:`"),
  strayProperty: (range: SourceRange, name: string, keyword: string | undefined) =>
    keyword === undefined
      ? error(
          "E004",
          range,
          `\`${name}:\` is a property, but no agent or session above it owns it`,
          "indent it under the agent or session it belongs to",
        )
      : error("E004", range, `unknown statement \`${name}:\` (did you mean ${quote(keyword)}?)`),
  unknownStatement: (range: SourceRange, word: string, keyword: string | undefined) =>
    error(
      "E004",
      range,
      keyword === undefined
        ? `unknown statement ${quote(word)}`
        : `unknown statement ${quote(word)} (did you mean ${quote(keyword)}?)`,
      keyword === undefined
        ? "a statement starts with a keyword such as `agent`, `let` or `session`, or assigns a name: `name = value`"
        : undefined,
    ),
  misspeltKeyword: (range: SourceRange, word: string, keyword: string) =>
    error(
      "E004",
      range,
      `${quote(word)} is not a keyword (did you mean ${quote(keyword)}?)`,
      `write ${quote(keyword)}: a value is a name, a literal, or begins with a keyword such as \`session\` or \`do\``,
    ),
  modifierWithoutParentheses: (range: SourceRange, name: string, value: string | undefined) =>
    error(
      "E004",
      range,
      `${quote(name)} is a modifier: it goes in parentheses after the condition`,
      `write \`(${name}: ${value ?? "N"})\`, as in \`loop until **done** (${name}: ${value ?? "N"}):\``,
    ),
  inlineStageBody: (range: SourceRange, operator: string) =>
    error(
      "E004",
      range,
      `the body of a \`| ${operator}:\` stage goes on the lines below it`,
      "end the line with `:` and indent the stage's statements under it",
    ),
  branchingAsValue: (range: SourceRange, keyword: string, name: string) =>
    error(
      "E004",
      range,
      `\`${keyword}\` is a statement, not a value: it cannot be assigned`,
      keyword === "if"
        ? `start the line with \`if\` and bind the name in each branch: \`let ${name} = session "..."\` under \`if\` and under \`else\``
        : `start the line with \`choice\` and bind the name in each option: \`let ${name} = session "..."\` under each \`option\``,
    ),
  sessionWithoutAgent: (range: SourceRange, name: string) =>
    error(
      "E004",
      range,
      `expected an agent name after \`session ${name}:\``,
      `\`session ${name}: agent\` runs an agent; a session without one is written \`session "what to do"\``,
    ),
  sessionHeaderPunctuation: (range: SourceRange, found: string) =>
    error(
      "E004",
      range,
      found === ":" ? "unexpected `:` after a session's prompt" : "a session takes no modifiers in parentheses",
      "write the session's properties (`context:`, `retry:` ...) on indented lines below it, one `name: value` per line",
    ),
  expectedBlock: (range: SourceRange, header: string) =>
    error(
      "E005",
      range,
      `expected an indented block after ${quote(`${header}:`)}`,
      "indent the lines that belong to it (2 spaces is usual)",
    ),
  danglingContinuation: (range: SourceRange, word: string) => {
    switch (word) {
      case "->":
        return error(
          "E004",
          range,
          "a line cannot start with `->`",
          "put `->` and the next step on the same line as the step before it",
        );
      case "|":
        return error(
          "E004",
          range,
          "a `|` pipeline stage has no collection before it",
          "indent the `| stage:` lines under the line that names the collection",
        );
      case "elif":
      case "else":
        return error("E004", range, `\`${word}\` without an \`if\` before it`, `line \`${word}\` up with its \`if\``);
      default:
        return error(
          "E004",
          range,
          `\`${word}\` without a \`try:\` before it`,
          `line \`${word}\` up with its \`try:\``,
        );
    }
  },
  unexpectedIndent: (range: SourceRange) =>
    error(
      "E005",
      range,
      "unexpected indentation",
      "indent a line only under a line ending in `:`, or under a session for its properties; is a `:` missing above?",
    ),
  tabIndentation: (range: SourceRange) => error("E005", range, "tab in indentation", "indent with spaces only"),
  inconsistentDedent: (range: SourceRange, width: number) =>
    error(
      "E005",
      range,
      `this line is indented by ${width} ${width === 1 ? "space" : "spaces"}, which matches no enclosing block`,
      "line it up with the block it belongs to",
    ),
  overIndented: (range: SourceRange, width: number, blockWidth: number) =>
    error(
      "E005",
      range,
      `this line is indented by ${width} spaces, ${width - blockWidth} more than the line${width - blockWidth === 1 ? "" : "s"} after it in its block`,
      `indent it by ${blockWidth} ${blockWidth === 1 ? "space" : "spaces"}, like the rest of the block`,
    ),
  invalidUtf8: (range: SourceRange) =>
    error(
      "P020",
      range,
      `not valid UTF-8 at ${range.start.line}:${range.start.column}`,
      "save the file as UTF-8 (prosec reads no other encoding)",
    ),
  binaryFile: (range: SourceRange) =>
    error(
      "P021",
      range,
      `binary file (a NUL byte at ${range.start.line}:${range.start.column}), not a .prose program`,
      "name a .prose text file",
    ),
  nestedTooDeeply: (range: SourceRange, limit: number, literals: boolean) =>
    literals
      ? error(
          "P022",
          range,
          `lists and records nested more than ${limit} levels deep`,
          "build the inner values first and bind them to names",
        )
      : error(
          "P022",
          range,
          `this statement nests more than ${limit} levels deep`,
          "move the inner part into a `block` and call it with `do`, or bind sub-expressions to names",
        ),
  unknownTypeName: (range: SourceRange, name: string, hint: string) =>
    error("P045", range, `${quote(name)} is not a type \`returns:\` knows`, hint),
  optionalType: (range: SourceRange, type: string) =>
    error(
      "P046",
      range,
      `\`${type}?\` is not a type`,
      `an optional field is written on its key: \`key?: ${type}\`; a value that may be null is \`${type} | null\``,
    ),
  malformedType: (range: SourceRange, problem: string, hint?: string) =>
    error(
      "P047",
      range,
      `\`returns:\` ${problem}`,
      hint ?? 'the types are string, number, boolean, null, "literal", A | B, T[] or [T], and { key: T, key?: T }',
    ),
  duplicateTypeKey: (range: SourceRange, key: string, first: SourceRange) =>
    error("P048", range, `the record type names ${quote(key)} twice`, "give each field once", at(first, "first here")),
  internalError: (range: SourceRange, cause: unknown) =>
    error(
      "P000",
      range,
      `internal compiler error: ${cause instanceof Error ? cause.message : String(cause)}`,
      "please report this with the file",
    ),
};

function oneOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

// ---------------------------------------------------------------------------------------------
// 2-analyze: names, scopes and validation
// ---------------------------------------------------------------------------------------------

const didYouMean = (suggestion: string | undefined) =>
  suggestion === undefined ? "" : ` (did you mean ${quote(suggestion)}?)`;

export const analyzeMessages = {
  // compiler.md's codes
  sessionWithoutPrompt: (range: SourceRange) =>
    error(
      "E003",
      range,
      "this session has no prompt and no agent",
      'write `session "what to do"`, `session: agent-name`, or add a `prompt:` property',
    ),
  duplicateAgent: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "E006",
      range,
      `agent ${quote(name)} is already defined on line ${first.start.line}`,
      "rename one of the two agents",
      at(first, "first defined here"),
    ),
  undefinedAgent: (range: SourceRange, name: string, suggestion: string | undefined) =>
    error(
      "E007",
      range,
      `agent ${quote(name)} is not defined${didYouMean(suggestion)}`,
      suggestion ? undefined : `define it with \`agent ${name}:\``,
    ),
  invalidModel: (range: SourceRange, value: string, suggestion: string | undefined) =>
    error(
      "E008",
      range,
      `unknown model ${quote(value)}${didYouMean(suggestion)}`,
      'use `sonnet`, `opus` or `haiku`, or a model id as a string: `model: "claude-..."`',
    ),
  duplicateProperty: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "E009",
      range,
      `property ${quote(name)} is already set on line ${first.start.line}`,
      "keep one of the two",
      at(first, "first set here"),
    ),
  duplicateUse: (range: SourceRange, what: string, first: SourceRange) =>
    error(
      "E010",
      range,
      `${what} is already imported on line ${first.start.line}`,
      "import each program once, with a distinct `as` name",
      at(first, "first imported here"),
    ),
  emptyUsePath: (range: SourceRange) =>
    error("E011", range, "the `use` path is empty", 'write `use "./other.prose" as other`'),
  invalidUsePath: (range: SourceRange, path: string) =>
    error(
      "E012",
      range,
      `${quote(path)} is not a program path`,
      'use a relative file path such as `"./research.prose"` (registry handles look like `"@handle/slug"`)',
    ),
  skillsNotArray: (range: SourceRange) =>
    error("E013", range, "`skills:` must be a list of skill names", 'write `skills: ["web-search"]`'),
  skillNotString: (range: SourceRange) =>
    error("E014", range, "a skill name must be a string", 'quote it: `"web-search"`'),
  permissionsNotBlock: (range: SourceRange) =>
    error(
      "E015",
      range,
      "`permissions:` must be an indented block of rules",
      "put `read:`, `write:`, `bash:` or `network:` on the lines below it, indented",
    ),
  permissionPatternNotString: (range: SourceRange) =>
    error("E016", range, "a permission pattern must be a string", 'quote the glob: `"src/**/*.ts"`'),
  resumeWithoutPersist: (range: SourceRange, agent: string) =>
    error(
      "E017",
      range,
      `\`resume:\` needs a persistent agent, but ${quote(agent)} has no \`persist:\``,
      `add \`persist: true\` to agent ${quote(agent)}, or use \`session: ${agent}\``,
    ),
  duplicateVariable: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "E019",
      range,
      `${quote(name)} is already declared in this scope on line ${first.start.line}`,
      `assign it with \`${name} = ...\` or choose another name`,
      at(first, "first declared here"),
    ),
  boundInsideOwnValue: (range: SourceRange, name: string, inner: SourceRange, fix: string) =>
    error(
      "E019",
      range,
      `${quote(name)} is bound twice: \`${name} = ...\` on line ${inner.start.line}, inside this statement's value, binds it after the statement too`,
      fix,
      at(inner, `${quote(name)} bound here, inside the value`),
    ),
  duplicateInput: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "E021",
      range,
      `input ${quote(name)} is already declared on line ${first.start.line}`,
      "remove one of the two declarations",
      at(first, "first declared here"),
    ),
  duplicateOutput: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "E024",
      range,
      `output ${quote(name)} is already declared in this scope on line ${first.start.line}`,
      "an output may be set once per branch",
      at(first, "first declared here"),
    ),
  unknownProgram: (range: SourceRange, name: string, suggestion: string | undefined) =>
    error(
      "E025",
      range,
      `${quote(name)} is not an imported program${didYouMean(suggestion)}`,
      suggestion ? undefined : `import it first: \`use "./${name}.prose" as ${name}\``,
    ),
  missingProgramInput: (range: SourceRange, program: string, input: string) =>
    error(
      "E026",
      range,
      `program ${quote(program)} needs input ${quote(input)}`,
      `pass it: \`${program}(${input}: ...)\``,
    ),
  unknownProgramInput: (range: SourceRange, program: string, input: string, suggestion: string | undefined) =>
    error("E027", range, `program ${quote(program)} has no input ${quote(input)}${didYouMean(suggestion)}`),
  unknownProgramOutput: (range: SourceRange, program: string, output: string, suggestion: string | undefined) =>
    error("E028", range, `program ${quote(program)} has no output ${quote(output)}${didYouMean(suggestion)}`),
  emptySessionPrompt: (range: SourceRange) =>
    warning("W001", range, "the session prompt is empty", "say what the session should do"),
  whitespacePrompt: (range: SourceRange) =>
    warning("W002", range, "the prompt holds only whitespace", "say what the session should do"),
  longPrompt: (range: SourceRange, length: number) =>
    warning(
      "W003",
      range,
      `the prompt is ${length.toLocaleString("en-US")} characters long (over 10,000)`,
      "split the work into smaller sessions",
    ),
  emptyPromptProperty: (range: SourceRange) =>
    warning("W004", range, "`prompt:` is empty", "give the prompt, or remove the property"),
  unknownProperty: (range: SourceRange, name: string) =>
    warning(
      "W005",
      range,
      `unknown property ${quote(name)}`,
      "it is passed to the model as a note; known properties are model, prompt, context, retry, backoff, persist, skills, permissions, empty, returns",
    ),
  misspeltProperty: (range: SourceRange, name: string, known: string) =>
    error(
      "P035",
      range,
      `unknown property ${quote(name)}: did you mean ${quote(known)}?`,
      `write \`${known}:\`; a misspelt property would silently change what runs (a misspelt \`permissions:\` gives the agent the default, wider permissions)`,
    ),
  legacyImport: (range: SourceRange) =>
    warning(
      "W006",
      range,
      "`import ... from ...` is the old form of `use`",
      "it still registers the skill name; `use` is preferred",
    ),
  skillNotImported: (range: SourceRange, skill: string) =>
    warning(
      "W007",
      range,
      `skill ${quote(skill)} is not imported`,
      `import it with \`import "${skill}" from "..."\` or \`use\``,
    ),
  unknownPermission: (range: SourceRange, name: string, suggestion: string | undefined) =>
    warning(
      "W008",
      range,
      `unknown permission ${quote(name)}${didYouMean(suggestion)}`,
      suggestion
        ? undefined
        : "permissions are read, write, execute, bash, network, env and mcp; unknown ones grant nothing",
    ),
  unknownPermissionValue: (range: SourceRange, permission: string, value: string) =>
    warning(
      "W009",
      range,
      `${quote(value)} is not a value for \`${permission}:\``,
      permission === "env"
        ? 'give a list of environment variable names (`["GITHUB_TOKEN"]`) or `deny`; it is treated as `deny`'
        : "use `allow`, `deny` or `prompt` (for read, write, execute and network also a list of patterns); it is treated as `deny`",
    ),
  emptySkills: (range: SourceRange) =>
    warning("W010", range, "`skills:` is empty", "list the skills, or remove the property"),

  // prosec's own codes
  undefinedName: (range: SourceRange, name: string, suggestion: string | undefined, condition = false) =>
    error(
      "P001",
      range,
      `${quote(name)} is not defined${didYouMean(suggestion)}`,
      suggestion
        ? undefined
        : condition
          ? `a condition a model judges goes between \`**\`: \`**${name}**\`; a name must be bound first: \`let ${name} = ...\``
          : `bind it first: \`let ${name} = ...\``,
    ),
  unboundInterpolation: (range: SourceRange, text: string, name: string, suggestion: string | undefined) =>
    warning(
      "P002",
      range,
      `${quote(text)} names no binding, so it stays literal text${didYouMean(suggestion)}`,
      suggestion === undefined
        ? `bind ${quote(name)} before this line to interpolate it, or write \\{ to mark the brace as text`
        : `write ${quote(`{${suggestion}}`)} to interpolate ${quote(suggestion)}, or write \\{ to mark the brace as text`,
    ),
  unknownValue: (range: SourceRange, property: string, value: string, allowed: readonly string[]) =>
    error(
      "P003",
      range,
      `${quote(value)} is not a value for \`${property}\``,
      // `parallel (first):` names a join without its quotes.
      property === "parallel" && allowed.includes(value)
        ? `a join is a string: write \`"${value}"\``
        : `use one of ${allowed.map(quote).join(", ")}`,
    ),
  unboundedLoop: (range: SourceRange) =>
    warning(
      "P004",
      range,
      "this loop has no iteration limit",
      "add `(max: N)` so a model that never says done cannot run it forever",
    ),
  countWithoutAny: (range: SourceRange) =>
    error("P005", range, '`count:` only applies to the `"any"` join strategy', 'write `parallel ("any", count: N):`'),
  arityMismatch: (range: SourceRange, block: string, expected: number, given: number) =>
    warning(
      "P006",
      range,
      `block ${quote(block)} takes ${expected} ${expected === 1 ? "argument" : "arguments"} but is given ${given}`,
      given < expected ? "missing parameters are null" : "extra arguments are ignored",
    ),
  shadowing: (range: SourceRange, name: string, outer: SourceRange) =>
    warning(
      "P007",
      range,
      `${quote(name)} shadows the ${quote(name)} declared on line ${outer.start.line}`,
      `to update that one, write \`${name} = ...\` without \`let\`; otherwise choose another name`,
      at(outer, "the outer declaration"),
    ),
  undefinedBlock: (range: SourceRange, name: string, suggestion: string | undefined) =>
    error(
      "P009",
      range,
      `block ${quote(name)} is not defined${didYouMean(suggestion)}`,
      suggestion ? undefined : `define it with \`block ${name}:\``,
    ),
  constReassignment: (range: SourceRange, name: string, declaration: SourceRange) =>
    error(
      "P010",
      range,
      `${quote(name)} is a \`const\` (line ${declaration.start.line}) and cannot be reassigned`,
      `declare it with \`let\` to change it`,
      at(declaration, "declared `const` here"),
    ),
  unreachableCode: (range: SourceRange, leaving: string, line: number) =>
    warning(
      "P040",
      range,
      `this code never runs: ${leaving} on line ${line} always leaves before it`,
      "remove it, or put what leaves behind a condition (`if ...:`)",
    ),
  constantReassigned: (
    range: SourceRange,
    name: string,
    what: "loop variable" | "block parameter",
    declaration: SourceRange,
  ) =>
    warning(
      "P041",
      range,
      `${quote(name)} is a ${what} (line ${declaration.start.line}): the new value holds only until the next ${what === "loop variable" ? "iteration" : "call"}`,
      `to keep a value of your own, bind another name: \`let ${name}_now = ...\``,
      at(declaration, `the ${what}`),
    ),
  numberTooLarge: (range: SourceRange, digits: number) =>
    error(
      "P043",
      range,
      `this number is too large: its ${digits} digits are past the largest number a program can hold (about 1.8e308), so it would run as Infinity`,
      'write a smaller number, or the digits as text (`"..."`) when they are an identifier rather than a quantity',
    ),
  notPositiveInteger: (range: SourceRange, what: string) =>
    error("P011", range, `${what} must be a whole number of at least 1`),
  nameIsAgent: (range: SourceRange, name: string) =>
    warning(
      "P012",
      range,
      `${quote(name)} is both an agent and a variable`,
      "use different names so `context:` and `session:` read clearly",
    ),
  tryWithoutHandler: (range: SourceRange) =>
    warning(
      "P013",
      range,
      "`try:` without `catch:` or `finally:` does nothing",
      "add `catch:` to handle the error, or remove `try:`",
    ),
  emptyCondition: (range: SourceRange) =>
    error("P014", range, "the condition is empty", "say what the model should judge: `**the tests pass**`"),
  duplicateBlock: (range: SourceRange, name: string, first: SourceRange) =>
    error(
      "P015",
      range,
      `block ${quote(name)} is already defined on line ${first.start.line}`,
      "rename one of the two blocks",
      at(first, "first defined here"),
    ),
  duplicateOptionLabel: (range: SourceRange, label: string) =>
    warning("P016", range, `option ${quote(label)} appears twice`, "give each option a distinct label"),
  unknownModifier: (range: SourceRange, name: string, allowed: readonly string[]) =>
    error(
      "P017",
      range,
      `${quote(name)} is not a modifier here`,
      allowed.length > 0 ? `use ${allowed.map(quote).join(", ")}` : "remove it",
    ),
  blockBindingRead: (range: SourceRange, name: string, block: string) =>
    warning(
      "P019",
      range,
      `${quote(name)} is bound inside block ${quote(block)}, not here`,
      `it is read from the block's last call; \`output ${name}\` from the block makes that explicit`,
    ),
  highCount: (range: SourceRange, count: number, branches: number) =>
    warning(
      "P018",
      range,
      `\`count: ${count}\` exceeds the ${branches} branches`,
      "the block can never succeed: lower the count",
    ),
  returnFromParallel: (range: SourceRange, where: string) =>
    error(
      "P036",
      range,
      `\`return\` cannot end the program or the block from inside ${where}: the other branches and items run on`,
      "give the branch or item its result (`output` or its last value), then `return` after the `parallel` if you must",
    ),
  breakFromItem: (range: SourceRange, keyword: "break" | "continue", where: string) =>
    error(
      "P037",
      range,
      `\`${keyword}\` cannot leave ${where}, which runs independently of the others`,
      keyword === "break"
        ? "use `continue` to end this item, or a sequential `for` to stop early"
        : "a branch ends at its last statement; use `if` to skip the rest",
    ),
  jumpOutsideLoop: (range: SourceRange, keyword: "break" | "continue") =>
    error(
      "P038",
      range,
      `\`${keyword}\` outside a loop`,
      "`break` and `continue` belong in a `loop`, `repeat` or `for` body; `return` ends a block or the program",
    ),
  misplacedReturns: (range: SourceRange, where: string) =>
    error(
      "P049",
      range,
      `\`returns:\` ${where}`,
      "write `returns:` as a property of a session or of an agent (for all its sessions)",
    ),
  filterVerdictReturns: (range: SourceRange, type: string) =>
    error(
      "P049",
      range,
      `\`returns: ${type}\` on a \`filter:\` verdict: the filter reads this session's answer as keep or drop, never as ${type}`,
      "remove `returns:` (the model is asked to keep or drop the item), or bind the typed result and end the stage with the test that decides: `let rating = session ...` with `returns:`, then `rating.score > 3`",
    ),
  unknownTypedField: (range: SourceRange, field: string, type: string, suggestion: string | undefined) =>
    error(
      "P050",
      range,
      `${quote(field)} is not a field of ${type}${suggestion === undefined ? "" : `: did you mean ${quote(suggestion)}?`}`,
      suggestion === undefined
        ? "read a field its `returns:` declares, or declare it there"
        : `write \`${suggestion}\``,
    ),
  unknownRecordField: (
    range: SourceRange,
    field: string,
    record: string,
    keys: readonly string[],
    suggestion: string | undefined,
  ) =>
    error(
      "P063",
      range,
      `${quote(field)} is not a field of ${record}, which has ${keys.length === 0 ? "no fields" : keys.map(quote).join(", ")}: reading it always gives null${suggestion === undefined ? "" : `. Did you mean ${quote(suggestion)}?`}`,
      suggestion === undefined
        ? "read a field the record has, or add this one where the record is written"
        : `write \`${suggestion}\``,
    ),
  typedAccessMismatch: (range: SourceRange, access: string, type: string) =>
    error("P051", range, `${access} of a value whose type is ${type}`, "its `returns:` type says what it holds"),
  misspeltInterpolation: (range: SourceRange, text: string, name: string, binding: string) =>
    error(
      "P039",
      range,
      `${quote(text)}: ${quote(name)} is one edit from ${quote(binding)}, so this looks like a typo, not text for the model`,
      `write ${quote(`{${binding}${text.slice(1 + name.length)}`)} to interpolate ${quote(binding)}, or \\${text} to keep the braces as text`,
    ),
  unknownMcpServer: (
    range: SourceRange,
    server: string,
    file: string | undefined,
    declared: readonly string[],
    suggestion: string | undefined,
  ) =>
    error(
      "P055",
      range,
      file === undefined
        ? `MCP server ${quote(server)} is not declared: there is no .mcp.json in the program's folder or above it`
        : `MCP server ${quote(server)} is not declared in ${file}${didYouMean(suggestion)}`,
      file === undefined
        ? 'declare it in .mcp.json beside the program: {"mcpServers": {"' +
            server +
            '": {"command": "...", "args": []}}}'
        : suggestion === undefined
          ? `${file} declares ${declared.length === 0 ? "no servers" : declared.map(quote).join(", ")}`
          : undefined,
    ),
  mcpGlobNotString: (range: SourceRange) =>
    error(
      "P056",
      range,
      "an `mcp:` entry is a quoted `server/tool` glob, or `prompt:` and one",
      'write `mcp: ["memory/*", prompt: "github/create_*"]`: the server as .mcp.json names it, then `/` and a tool glob; `prompt:` has a person approve each call',
    ),
  misspeltSkill: (range: SourceRange, skill: string, installed: string) =>
    error(
      "P058",
      range,
      `skill ${quote(skill)} is not installed (did you mean ${quote(installed)}?)`,
      `${quote(installed)} is in skills/, .claude/skills/ or ~/.claude/skills/`,
    ),
  duplicateRecordKey: (range: SourceRange, key: string, first: SourceRange) =>
    error(
      "P061",
      range,
      `this record gives the key ${quote(key)} twice: a record holds one value per key`,
      `remove one, or give this value a key of its own (\`${key}_2: ...\`)`,
      at(first, `${quote(key)} first given here`),
    ),
  envNamesModelKey: (range: SourceRange, name: string) =>
    error(
      "P059",
      range,
      `\`env:\` names ${quote(name)}, the model's credentials: prosec never gives them to a tool`,
      "remove it; a tool that calls an API gets a key of its own, under another variable (never the value prosec runs with)",
    ),
  badMcpConfig: (range: SourceRange, problem: string) =>
    error(
      "P057",
      range,
      `the MCP servers cannot be checked: ${problem}`,
      "fix .mcp.json (its format is Claude Code's)",
    ),
};

// ---------------------------------------------------------------------------------------------
// 3-transform / build
// ---------------------------------------------------------------------------------------------

export const buildMessages = {
  importNotFound: (range: SourceRange, path: string, resolved: string, suggestion?: string) =>
    error(
      "P030",
      range,
      `cannot read the imported program ${quote(path)} (looked for ${quote(resolved)})`,
      suggestion === undefined
        ? "check the path: it is relative to this file"
        : `did you mean ${quote(suggestion)}? The path is relative to this file`,
    ),
  importHasErrors: (range: SourceRange, path: string) =>
    error(
      "P031",
      range,
      `the imported program ${quote(path)} has errors`,
      `run \`prosec check\` on it and fix them first`,
    ),
  importNotLocked: (range: SourceRange, path: string, key: string) =>
    error(
      "P008",
      range,
      `${quote(path)} is not in prose.lock: building never fetches a program`,
      // `lib/helper.prose` reads as a registry reference (handle/slug); its author meant the file.
      path.endsWith(".prose") && !/^https?:/.test(path)
        ? `a local program's path starts with \`./\` or \`../\`: write \`use "./${path}"\` (a registry reference, handle/slug, has no \`.prose\`)`
        : `fetch it once into the project with \`prosec add ${key}\``,
    ),
  vendoredCopyMissing: (range: SourceRange, path: string, file: string) =>
    error(
      "P032",
      range,
      `the vendored copy of ${quote(path)} is missing (${quote(file)})`,
      "restore the vendored programs from prose.lock with `prosec install`",
    ),
  vendoredCopyDiffers: (range: SourceRange, path: string, file: string) =>
    error(
      "P032",
      range,
      `the vendored copy of ${quote(path)} (${quote(file)}) differs from the SHA-256 in prose.lock`,
      "restore it with `prosec install`, or take the registry's current version with `prosec update`",
    ),
  lockfileUnreadable: (range: SourceRange, problem: string) =>
    error("P034", range, problem, "restore prose.lock from version control, or delete it and `prosec add` again"),
  lockfileGitNative: (range: SourceRange, problem: string) => error("P042", range, problem, GIT_NATIVE_LOCKFILE_HINT),
  importCycle: (range: SourceRange, chain: string) =>
    error(
      "P033",
      range,
      `programs import each other in a cycle: ${chain}`,
      "a program cannot use itself, directly or through the programs it uses",
    ),
};

/** What prosec supports instead of upstream OpenProse's git-native `prose.lock` (P042). */
export const GIT_NATIVE_LOCKFILE_HINT =
  "prosec pins registry references (`alice/research`) and https URLs in a JSON prose.lock that `prosec add` writes; " +
  'git-native `use "github.com/..."` is not supported: use a registry reference or the https URL of the raw .prose file, ' +
  "and keep this file out of the folders above your programs (prosec never overwrites it)";

/** An exception nothing expected (exit 3): it is prosec's bug, and the report says what to send. */
export function internalErrorText(message: string, file: string | undefined): string {
  const input = file === undefined ? "" : ` while compiling ${file}`;
  const attach = file === undefined ? "" : `, with ${file} attached`;
  return `prosec: internal error${input}: ${message}\nThis is a bug in prosec, not in your program: please report it${attach} (PROSEC_DEBUG=1 prints where it failed).\n`;
}
