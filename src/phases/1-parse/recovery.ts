/**
 * Error recovery inside a statement, the way tsc recovers: a line that does not parse is reported,
 * then it and the lines indented under it are replaced by one SKIPPED token, which the grammar
 * reads as a `Recovered` statement, and the statement is parsed again. So an error deep in a block
 * costs only that nested statement: the rest of the block, and of the program, is still parsed and
 * analysed. The `Recovered` statement keeps the names the skipped lines would have bound, so that
 * reading them elsewhere is no error (no cascades).
 *
 * Where a statement cannot stand (a broken property line, say, inside an agent), the parse then
 * fails at the SKIPPED token itself: the skip widens to the line that owns the block, and so on up
 * to the whole top-level statement. Clauses that continue a skipped line (`elif`, `else`, `catch`,
 * `finally`) are skipped with it.
 */
import type { RecoveredNamespace, RecoveredStatement, SourceRange } from "../../ast.js";
import type { Token } from "./token.js";

type RecoveredName = RecoveredStatement["names"][number];

/** Words that continue the construct on the line above (`elif`, `catch`...): an error there is the skip's doing. */
const continuationWords: ReadonlySet<string> = new Set(["elif", "else", "catch", "finally", "|", "->", "option"]);

/** Clauses of the statement above (`catch as err` missing its `:`, say): skipped, they still were written. */
const clauseWords: ReadonlySet<string> = new Set(["elif", "else", "catch", "finally"]);

/** A token range `[from, to)` of `tokens`. */
interface Region {
  readonly from: number;
  readonly to: number;
}

/**
 * The region to skip for a failure at `at` (an index into `tokens`, `tokens.length` for the end):
 * the line that failed and the block indented under it; undefined when that line starts the
 * statement (nothing smaller than the whole statement can be skipped). With `widen`, the failure
 * is the doing of an earlier skip: the region is that skip's owning line and its block.
 */
export function regionToSkip(tokens: readonly Token[], at: number): { region?: Region; widen: boolean } {
  const failing = tokens[at];
  const blamed = blamedSkip(tokens, at);
  // `elif` / `else` / `catch`... after a skipped line continue what it began: they are skipped with it.
  if (blamed !== undefined && blamed !== at && failing !== undefined && continuationWords.has(failing.text))
    return { region: { from: blamed, to: blockEnd(tokens, at) }, widen: true };
  if (blamed !== undefined) return { region: owningRegion(tokens, blamed), widen: true };
  // An unexpected INDENT or DEDENT, or the end of the statement: the line before is at fault.
  const line =
    failing === undefined || failing.type === "INDENT" || failing.type === "DEDENT"
      ? lineStart(tokens, lastContent(tokens, at))
      : lineStart(tokens, at);
  if (line <= firstContent(tokens)) return { widen: false };
  return { region: { from: line, to: blockEnd(tokens, line) }, widen: false };
}

/** Replaces `region` of `tokens` by one SKIPPED token (and its NEWLINE) standing for a `Recovered` statement. */
export function skip(tokens: readonly Token[], region: Region): Token[] {
  const removed = tokens.slice(region.from, region.to);
  const skipped = recoveredStatement(removed);
  const token: Token = { type: "SKIPPED", text: "\u0000skipped", value: "", loc: skipped.loc, skipped };
  const newline: Token = { type: "NEWLINE", text: "\u0000newline", value: "", loc: endOf(skipped.loc) };
  return [...tokens.slice(0, region.from), token, newline, ...tokens.slice(region.to)];
}

/** The whole statement, skipped: what a top-level statement with no smaller recovery becomes. */
export function recoveredStatement(tokens: readonly Token[]): RecoveredStatement {
  const content = tokens.filter((token) => !isLayout(token));
  const first = content[0] ?? tokens[0]!;
  const last = content[content.length - 1] ?? first;
  return {
    kind: "Recovered",
    names: boundNames(tokens),
    continues: first.type === "name" && clauseWords.has(first.text),
    loc: { start: first.loc.start, end: last.loc.end },
  };
}

/**
 * The names the lines among `tokens` would bind, read from how each line begins: `let x` / `const x`
 * / `let { a, b }`, `x =`, `output x =`, `input x:`, `agent x`, `block x`, `use "..." as x`,
 * `import "skill"`; the blocks it calls with `do`; and the names of skips already among them.
 */
function boundNames(tokens: readonly Token[]): RecoveredName[] {
  const names: RecoveredName[] = [];
  // For each open block: does it have a scope of its own (a block's body, a pipeline stage's)?
  // Names bound in other bodies (branches, loops, `try`) are the enclosing scope's (bindings.ts, hoist).
  const ownScopes: boolean[] = [];
  let lineHead: Token | undefined;
  const inOwnScope = () => ownScopes.includes(true);
  const addName = (namespace: RecoveredNamespace, name: string, nested = inOwnScope()) => {
    const known = names.findIndex((candidate) => candidate.namespace === namespace && candidate.name === name);
    if (known === -1) names.push({ namespace, name, nested });
    else if (!nested) names[known] = { namespace, name, nested };
  };
  const add = (namespace: RecoveredNamespace, token: Token | undefined) => {
    if (token?.type === "name") addName(namespace, token.text);
  };
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.type === "INDENT") ownScopes.push(lineHead?.text === "block" || lineHead?.text === "|");
    else if (token.type === "DEDENT") ownScopes.pop();
    if (!isLayout(token) && (index === 0 || isLayout(tokens[index - 1]!))) lineHead = token;
    if (token.type === "SKIPPED") {
      for (const name of token.skipped?.names ?? []) addName(name.namespace, name.name, name.nested || inOwnScope());
      continue;
    }
    if (token.text === "do") add("called", tokens[index + 1]);
    if (isLayout(token) || (index > 0 && !isLayout(tokens[index - 1]!))) continue;
    const next = tokens[index + 1];
    const word = token.type === "name" ? token.text : "";
    if ((word === "let" || word === "const") && next?.text === "{") {
      for (let inner = index + 2; inner < tokens.length && tokens[inner]!.text !== "}"; inner++)
        if (tokens[inner + 1]?.text !== ":") add("value", tokens[inner]);
    } else if (word === "let" || word === "const" || word === "output" || word === "input") add("value", next);
    else if (word === "agent") add("agent", next);
    else if (word === "block") add("block", next);
    else if (word === "import" && next?.node?.kind === "String") addName("skill", next.node.value);
    else if (word === "use") {
      const line = tokens.slice(index, lineEnd(tokens, index));
      const alias = line[line.findIndex((candidate) => candidate.text === "as") + 1];
      // Named as definitions.ts names an import: its alias, else the file's name.
      const path =
        next?.node?.kind === "String"
          ? next.node.value
              .replace(/\.prose$/, "")
              .split("/")
              .pop()
          : undefined;
      if (alias?.type === "name") add("program", alias);
      else if (path) addName("program", path);
    } else if (next?.text === "=") add("value", token);
  }
  return names;
}

/** The SKIPPED token a failure at `at` is blamed on: the failing token itself, or a continuation word just after one. */
function blamedSkip(tokens: readonly Token[], at: number): number | undefined {
  const failing = tokens[at];
  if (failing?.type === "SKIPPED") return at;
  let before = at - 1;
  while (before >= 0 && (tokens[before]!.type === "DEDENT" || tokens[before]!.type === "NEWLINE")) before--;
  const afterSkip = before >= 0 && tokens[before]!.type === "SKIPPED";
  const atLineStart = at > 0 && isLayout(tokens[at - 1]!);
  if (
    afterSkip &&
    (failing === undefined || failing.type === "DEDENT" || (atLineStart && continuationWords.has(failing.text)))
  )
    return before;
  return undefined;
}

/** The line that owns the block holding `index`, with its block; undefined at the statement's own level. */
function owningRegion(tokens: readonly Token[], index: number): Region | undefined {
  let depth = 0;
  for (let at = index - 1; at >= 0; at--) {
    const type = tokens[at]!.type;
    if (type === "DEDENT") depth++;
    else if (type === "INDENT" && depth-- === 0) {
      const owner = lineStart(tokens, at - 1);
      return owner <= firstContent(tokens) ? undefined : { from: owner, to: blockEnd(tokens, owner) };
    }
  }
  return undefined;
}

/** Where the logical line holding `index` starts. */
function lineStart(tokens: readonly Token[], index: number): number {
  let start = Math.min(index, tokens.length - 1);
  // A NEWLINE belongs to the line it ends.
  if (tokens[start]?.type === "NEWLINE") start--;
  while (start > 0 && !isLayout(tokens[start - 1]!)) start--;
  return start;
}

/** The index just past the NEWLINE ending the line that starts at `start`. */
function lineEnd(tokens: readonly Token[], start: number): number {
  let end = start;
  while (end < tokens.length && tokens[end]!.type !== "NEWLINE") end++;
  return Math.min(end + 1, tokens.length);
}

/** The index just past the line at `start` and the block indented under it (its closing DEDENT included). */
function blockEnd(tokens: readonly Token[], start: number): number {
  const end = lineEnd(tokens, start);
  if (tokens[end]?.type !== "INDENT") return end;
  let depth = 0;
  for (let at = end; at < tokens.length; at++) {
    const type = tokens[at]!.type;
    if (type === "INDENT") depth++;
    else if (type === "DEDENT" && --depth === 0) return at + 1;
  }
  return tokens.length;
}

function firstContent(tokens: readonly Token[]): number {
  const index = tokens.findIndex((token) => !isLayout(token));
  return index === -1 ? 0 : index;
}

function lastContent(tokens: readonly Token[], before: number): number {
  let index = Math.min(before, tokens.length) - 1;
  while (index > 0 && isLayout(tokens[index]!)) index--;
  return Math.max(index, 0);
}

function isLayout(token: Token): boolean {
  return token.type === "NEWLINE" || token.type === "INDENT" || token.type === "DEDENT";
}

function endOf(range: SourceRange): SourceRange {
  return { start: range.end, end: range.end };
}
