import nearley from "nearley";
import { isOneOf, propertyNames } from "../../../runtime/vocabulary.js";
import type { Program, SourceRange, Statement } from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import compiledGrammar from "./grammar.js";
import { adjacentParen, binaryOperators, ref, statementKeywords, TokenStream } from "./grammar-support.js";
import type { LineMap } from "./line-map.js";
import { EarleyParser } from "./earley.js";
import { nestingLimit, tooDeep } from "./nesting.js";
import { recoveredStatement, regionToSkip, skip } from "./recovery.js";
import { closestWord } from "./spelling.js";
import type { Token } from "./token.js";

const grammar = nearley.Grammar.fromCompiled(compiledGrammar as unknown as nearley.CompiledRules);
const earley = new EarleyParser(grammar);

/** Words that continue the statement above them rather than starting a new one. */
const continuations: ReadonlySet<string> = new Set(["elif", "else", "catch", "finally", "|", "->"]);

export interface ParseOptions {
  /** Called for a statement with more than one parse: a grammar bug (tests assert it never happens). */
  readonly onAmbiguity?: (range: SourceRange, parses: number) => void;
}

/**
 * Parses the laid-out token stream one top-level statement at a time. A syntax error costs only the
 * statement it is in: parsing resumes at the next top-level statement, so a file reports every
 * broken statement and the AST keeps every good one.
 */
export function parseTokens(
  lines: LineMap,
  tokens: Iterable<Token>,
  options: ParseOptions = {},
): { ast: Program; diagnostics: Diagnostic[] } {
  const body: Statement[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const chunk of topLevelStatements(tokens)) {
    const result = parseRecovering(lines, chunk, options);
    body.push(...result.statements);
    diagnostics.push(...result.errors);
  }
  const ast: Program = { kind: "Program", body, loc: lines.range(0, lines.source.length) };
  return { ast, diagnostics };
}

/** Splits tokens where the indentation returns to column 1 and a new statement starts. */
export function* topLevelStatements(tokens: Iterable<Token>): Generator<Token[]> {
  let chunk: Token[] = [];
  let depth = 0;
  for (const token of tokens) {
    const previous = chunk[chunk.length - 1];
    const startsStatement =
      depth === 0 &&
      previous !== undefined &&
      (previous.type === "NEWLINE" || previous.type === "DEDENT") &&
      token.type !== "INDENT" &&
      token.type !== "DEDENT" &&
      !continuations.has(token.text);
    if (startsStatement) {
      yield chunk;
      chunk = [];
    }
    if (token.type === "INDENT") depth++;
    else if (token.type === "DEDENT") depth--;
    chunk.push(token);
  }
  if (chunk.length > 0) yield chunk;
}

/** Most skips a statement may take before it is skipped whole: recovery stays linear in practice. */
const skipLimit = 100;

/**
 * Parses one top-level statement; where a nested line does not parse, reports it and skips it
 * (recovery.ts), down to skipping the whole statement. Every failure costs one diagnostic.
 */
function parseRecovering(
  lines: LineMap,
  chunk: readonly Token[],
  options: ParseOptions,
): { statements: Statement[]; errors: Diagnostic[] } {
  const errors: Diagnostic[] = [];
  let tokens = chunk;
  for (let skips = 0; skips <= skipLimit; skips++) {
    const result = parseStatement(lines, tokens, options);
    if (result.statements) return { statements: result.statements, errors };
    const { region, widen } = result.at === undefined ? { widen: false } : regionToSkip(tokens, result.at);
    if (!widen) errors.push(result.error);
    if (region === undefined) break;
    tokens = skip(tokens, region);
  }
  return { statements: [recoveredStatement(tokens)], errors };
}

type StatementResult =
  | { statements: Statement[]; error?: never; at?: never }
  | { statements?: never; error: Diagnostic; /** The failing token's index (the length: the end). */ at?: number };

function parseStatement(lines: LineMap, tokens: readonly Token[], options: ParseOptions): StatementResult {
  // earley.ts finds the parses; only a statement that has none goes through nearley's own parser,
  // whose chart says what was expected where it fails.
  try {
    const parses = earley.parse(tokens) as Statement[][] | undefined;
    if (parses === undefined) return explainFailure(lines, tokens);
    if (parses.length > 1)
      options.onAmbiguity?.({ start: tokens[0]!.loc.start, end: tokens[tokens.length - 1]!.loc.end }, parses.length);
    for (const statement of parses[0]!) {
      const deep = tooDeep(statement);
      if (deep) return { error: parseMessages.nestedTooDeeply(deep.node.loc, deep.limit, deep.literals) };
    }
    return { statements: parses[0]! };
  } catch (error) {
    // The parser's own recursion (thousands of `not` or brackets) runs out of stack before the
    // tree exists to be measured: that is the same diagnostic, at the statement's start.
    if (!(error instanceof RangeError)) throw error;
    const start = tokens[0]!.loc;
    return { error: parseMessages.nestedTooDeeply({ start: start.start, end: start.end }, nestingLimit, false) };
  }
}

/** Parses a statement that has no parse with nearley, and explains where and why it fails. */
function explainFailure(lines: LineMap, tokens: readonly Token[]): StatementResult {
  const stream = new TokenStream();
  stream.load(tokens);
  const parser = new nearley.Parser(grammar, { lexer: stream as unknown as nearley.Lexer });
  // nearley renders a long parse-table dump for every error; prosec writes its own message.
  (parser as unknown as { reportError: () => string }).reportError = () => "syntax error";
  try {
    parser.feed("");
  } catch (error) {
    const token = (error as { token?: Token }).token;
    if (!token) throw error;
    const index = tokens.indexOf(token);
    return { error: syntaxError(lines, token, tokens.slice(0, index), expectedSymbols(parser)), at: index };
  }
  const parses = parser.results as Statement[][];
  if (parses.length > 0) throw new Error("internal error: nearley parses a statement earley.ts could not");
  const last = tokens[tokens.length - 1]!;
  return { error: syntaxError(lines, endOfStatement(last), tokens, expectedAfterEnd(parser)), at: tokens.length };
}

function endOfStatement(last: Token): Token {
  return { type: "NEWLINE", text: "", value: "", loc: { start: last.loc.end, end: last.loc.end } };
}

type Expectation = { readonly literal?: string; readonly type?: string; readonly test?: unknown };

interface ParserInternals {
  readonly table: { states: { rule: { symbols: (string | Expectation)[] }; dot: number }[] }[];
}

/** The terminals the parser could have accepted where it failed. */
function expectedSymbols(parser: nearley.Parser): Set<string> {
  const table = (parser as unknown as ParserInternals).table;
  return expectedIn(table[table.length - 2]);
}

function expectedAfterEnd(parser: nearley.Parser): Set<string> {
  const table = (parser as unknown as ParserInternals).table;
  return expectedIn(table[table.length - 1]);
}

function expectedIn(column: ParserInternals["table"][number] | undefined): Set<string> {
  const expected = new Set<string>();
  for (const state of column?.states ?? []) {
    const symbol = state.rule.symbols[state.dot];
    if (symbol === undefined || typeof symbol === "string") continue;
    if (symbol.literal !== undefined) expected.add(symbol.literal);
    else if (symbol.type !== undefined) expected.add(symbol.type);
    else if (symbol === ref) expected.add("name");
    else if (symbol === adjacentParen) expected.add("(");
  }
  return expected;
}

/** Turns the failing token and what the parser wanted into one short message. */
function syntaxError(
  lines: LineMap,
  token: Token,
  before: readonly Token[],
  expected: ReadonlySet<string>,
): Diagnostic {
  const previous = before[before.length - 1];
  const range = token.loc;
  if (token.type === "unknown") return parseMessages.unexpectedCharacter(range, token.text);
  if ((previous === undefined || isLayout(previous)) && continuations.has(token.text)) {
    return parseMessages.danglingContinuation(range, token.text);
  }
  if (expected.has("INDENT")) {
    const colon = [...before].reverse().find((candidate) => !isLayout(candidate));
    if (colon?.text === ":") return parseMessages.expectedBlock(colon.loc, headerText(lines, before, colon));
  }
  // An indented line the line above cannot own (only `| stage:` lines may follow a bare value).
  const indentation =
    token.type === "INDENT"
      ? before.length
      : previous?.type === "INDENT" && [...expected].every((symbol) => symbol === "|")
        ? before.length - 1
        : -1;
  if (indentation !== -1) {
    // `parallel` + an indented block: the header line above lacks its `:`.
    const lineEnd = before[indentation - 1];
    const header = lineEnd?.type === "NEWLINE" ? blockHeaderOf(before.slice(0, indentation - 1)) : undefined;
    if (header !== undefined && lineEnd !== undefined) return parseMessages.missingBlockColon(lineEnd.loc, header);
    return parseMessages.unexpectedIndent(range);
  }
  if (token.type === "NEWLINE" && expected.has(":")) {
    const construct = blockHeaderOf(before);
    if (construct !== undefined) return parseMessages.missingBlockColon(range, construct);
  }
  const line = currentLine(before);
  const stage = previous?.text === ":" && token.type !== "NEWLINE" ? pipeStageOperator(line.slice(0, -1)) : undefined;
  if (stage !== undefined) return parseMessages.inlineStageBody(range, stage);
  if (
    token.type === "NEWLINE" &&
    previous?.text === ":" &&
    line.length === 3 &&
    line[0]!.text === "session" &&
    line[1]!.type === "name"
  ) {
    return parseMessages.sessionWithoutAgent(range, line[1]!.text);
  }
  if (previous?.type === "string" && line[0]?.text === "session" && (token.text === ":" || token.text === "(")) {
    return parseMessages.sessionHeaderPunctuation(range, token.text);
  }
  const first = line[0];
  if (line.length === 1 && first?.type === "name" && !statementKeywords.has(first.text)) {
    // A line that begins with a plain word: a property with no owner (`context: x`), or a misspelled keyword.
    const suggestion = closestWord(first.text, statementKeywords);
    if (token.text === ":") return parseMessages.strayProperty(first.loc, first.text, suggestion);
    // `  returns string` under a session: a property whose `:` is missing, not a misspelt `return`.
    if (first.loc.start.column > 1 && isOneOf(propertyNames, first.text))
      return parseMessages.expectedColon(range, first.text, describe(token), true);
    if (["name", "string", "number", "discretion"].includes(token.type))
      return parseMessages.unknownStatement(first.loc, first.text, suggestion);
  }
  // `let r = sesion "..."`: a misspelt keyword where a value stands.
  const meant =
    previous?.type === "name" && line.length >= 2
      ? valueKeywords[token.type === "punctuation" ? token.text : token.type]
      : undefined;
  if (previous !== undefined && meant !== undefined && !statementKeywords.has(previous.text)) {
    const keyword = closestWord(previous.text, meant);
    if (keyword !== undefined) return parseMessages.misspeltKeyword(previous.loc, previous.text, keyword);
  }
  // `let x = if ...:`, `let x = choice ...:`: a statement that branches where a value stands.
  if (previous?.text === "=" && token.type === "name" && (token.text === "if" || token.text === "choice")) {
    const bound = before[before.length - 2];
    return parseMessages.branchingAsValue(range, token.text, bound?.type === "name" ? bound.text : "x");
  }
  // `loop until **done** max 3:`: a modifier without its parentheses.
  if (first?.text === "loop" && token.type === "name" && loopModifiers.has(token.text)) {
    const rest = lines.source.slice(token.loc.start.offset, lines.source.indexOf("\n", token.loc.start.offset) >>> 0);
    const value = /^\S+\s*:?\s*([^\s:]+)/.exec(rest)?.[1];
    return parseMessages.modifierWithoutParentheses(range, token.text, value);
  }
  if (expected.size === 1 && expected.has(":") && previous !== undefined) {
    const startsLine = isLayout(before[before.length - 2] ?? previous);
    return parseMessages.expectedColon(
      range,
      previous.text,
      describe(token),
      startsLine && before.some((t) => t.type === "INDENT"),
    );
  }
  // `loop untill **done**:`: a word one typo from a keyword the grammar expected there.
  const keyword =
    token.type === "name"
      ? closestWord(
          token.text,
          [...expected].filter((symbol) => /^[a-z]+$/.test(symbol)),
        )
      : undefined;
  return parseMessages.unexpectedToken(range, describe(token), describeExpected(expected), keyword);
}

/**
 * Keywords that begin a value, by what follows them (`session "..."`, `resume: agent`, `do name`): what a
 * misspelt word in value position may have meant, given the token after it.
 */
const valueKeywords: Readonly<Record<string, readonly string[]>> = {
  string: ["session"],
  ":": ["session", "resume"],
  name: ["session", "do"],
};

/** The modifiers a `loop` header takes, in parentheses. */
const loopModifiers: ReadonlySet<string> = new Set(["max"]);

/** What a line that opens an indented block is called in messages, by the keyword that opens it. */
const blockHeaders: Readonly<Record<string, string>> = {
  if: "the `if` condition",
  elif: "the `elif` condition",
  else: "`else`",
  loop: "the `loop` header",
  for: "the `for` header",
  parallel: "`parallel`",
  repeat: "the `repeat` count",
  try: "`try`",
  catch: "`catch`",
  finally: "`finally`",
  choice: "the `choice` condition",
  option: "the `option` label",
  block: "the block name and parameters",
  agent: "the agent name",
};

/** The tokens of the line being parsed when the error happened, up to the error. */
function currentLine(before: readonly Token[]): readonly Token[] {
  let start = before.length;
  while (start > 0 && !isLayout(before[start - 1]!)) start--;
  return before.slice(start);
}

/** The operator when `tokens` end with `| map`, `| filter`, `| pmap` or `| reduce(...)`. */
function pipeStageOperator(tokens: readonly Token[]): string | undefined {
  const last = tokens[tokens.length - 1];
  if (last?.text === ")") {
    const open = tokens.map((t) => t.text).lastIndexOf("(");
    return open > 1 && tokens[open - 1]!.text === "reduce" && tokens[open - 2]!.text === "|" ? "reduce" : undefined;
  }
  const isStage =
    last !== undefined && ["map", "filter", "pmap"].includes(last.text) && tokens[tokens.length - 2]?.text === "|";
  return isStage ? last.text : undefined;
}

/** The construct whose header the current (last) line of `before` is, if it opens a block. */
function blockHeaderOf(before: readonly Token[]): string | undefined {
  let start = before.length;
  while (start > 0 && !isLayout(before[start - 1]!)) start--;
  for (let index = start; index < before.length; index++) {
    const word = before[index]!;
    // Own keys only: a name such as `toString` opens no block.
    if (word.type !== "name" || !Object.hasOwn(blockHeaders, word.text)) continue;
    // `parallel for x in xs` is a `for` header.
    return word.text === "parallel" && before[index + 1]?.text === "for" ? blockHeaders.for : blockHeaders[word.text];
  }
  return undefined;
}

/** The header line a block belongs to, as written: `loop until **done**`. */
function headerText(lines: LineMap, before: readonly Token[], colon: Token): string {
  let start = before.indexOf(colon);
  while (start > 0 && !isLayout(before[start - 1]!)) start--;
  const text = lines.source.slice(before[start]!.loc.start.offset, colon.loc.start.offset).replace(/\s+/g, " ");
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function isLayout(token: Token): boolean {
  return token.type === "NEWLINE" || token.type === "INDENT" || token.type === "DEDENT";
}

function describe(token: Token): string {
  switch (token.type) {
    case "NEWLINE":
      return "end of line";
    case "INDENT":
      return "indentation";
    case "DEDENT":
      return "end of block";
    case "string":
    case "discretion": {
      const firstLine = token.text.split("\n", 1)[0]!;
      return `\`${firstLine.length > 30 || firstLine.length < token.text.length ? `${firstLine.slice(0, 27)}...` : firstLine}\``;
    }
    default:
      return `\`${token.text}\``;
  }
}

const describedTypes: Readonly<Record<string, string>> = {
  name: "a name",
  string: "a string",
  number: "a number",
  discretion: "a `**condition**`",
  NEWLINE: "end of line",
  INDENT: "an indented block",
  DEDENT: "end of block",
};

/** Operators that could extend a complete expression: noise when the line could also just end. */
const continuingOperators: ReadonlySet<string> = new Set(["->", "|", ...binaryOperators, ".", "["]);

/** At most a handful of alternatives, names and values first, keywords last. */
function describeExpected(expected: ReadonlySet<string>): string[] {
  const symbols = expected.has("NEWLINE")
    ? [...expected].filter((symbol) => !continuingOperators.has(symbol))
    : [...expected];
  const typed = symbols.filter((symbol) => symbol in describedTypes).map((symbol) => describedTypes[symbol]!);
  const literals = symbols.filter((symbol) => !(symbol in describedTypes)).map((symbol) => `\`${symbol}\``);
  return [...typed, ...literals.sort()].slice(0, 6);
}
