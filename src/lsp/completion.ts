/**
 * Completion, by what the text before the cursor calls for: names in scope inside `{…}` of a
 * string, agents after `session:`, blocks after `do`, stages after `|`, property names on the lines under an agent
 * or a session, a property's words after its colon, keywords where a statement starts, names
 * where a value goes, and the servers of `.mcp.json` at the start of an `mcp:` glob. Scopes are the analyzer's; while the line being typed does not parse, the
 * program is analysed without it.
 */
import { CompletionItemKind, type CompletionItem } from "vscode-languageserver";
import { statementKeywords } from "../phases/1-parse/index.js";
import {
  boundNames,
  permissionKinds,
  propertyNames,
  propertyWords,
  visibleSymbols,
  type Analysis,
  type Scope,
  type SymbolInfo,
} from "../phases/2-analyze/index.js";
import { checkSource } from "../pipeline.js";
import { nodesAt } from "./syntax-tree.js";
import type { CheckedDocument } from "./workspace.js";

const NAME = String.raw`[\p{L}_][\p{L}\p{N}_]*(?:-[\p{L}\p{N}_]*)*`;
const partial = `(?:${NAME})?`;
const afterAgentColon = new RegExp(
  String.raw`(?:^|[\s=(])(?:session(?:\s+${NAME})?|resume|agent)\s*:\s*${partial}$`,
  "u",
);
const afterDo = new RegExp(String.raw`(?:^|[\s=(])do\s+${partial}$`, "u");
const afterPipe = new RegExp(String.raw`\|\s*${partial}$`, "u");
const pipeOperators = ["map", "filter", "pmap", "reduce"];
const afterProperty = new RegExp(String.raw`^\s*(${NAME})\s*:\s*${partial}$`, "u");
const wordOnly = new RegExp(String.raw`^\s*${partial}$`, "u");
const valuePosition = new RegExp(
  String.raw`(?:[=(,\[{+\-*/<>:]|->|\b(?:in|if|elif|while|until|and|or|not|is|throw)\s)\s*${partial}$`,
  "u",
);
const openPlaceholder = /\{[\p{L}\p{N}_-]*$/u;
/** Inside the server part of a glob of an `mcp:` list written on one line: `mcp: ["memory/*", prompt: "gi`. */
const mcpServerPart = /^\s*mcp\s*:\s*\[(?:[^\]"]*"[^"]*")*[^\]"]*"[^"/]*$/u;
const agentHeader = new RegExp(String.raw`^\s*agent\s+${NAME}\s*:\s*(?:#.*)?$`, "u");
const sessionHeader = new RegExp(
  String.raw`^\s*(?:(?:let\s+|const\s+|output\s+)?${NAME}\s*=\s*)?(?:session|resume)\b`,
  "u",
);
const permissionsHeader = /^\s*permissions\s*:\s*(?:#.*)?$/u;
const expressionKeywords = [
  "session",
  "resume",
  "do",
  "parallel",
  "repeat",
  "for",
  "loop",
  "try",
  "true",
  "false",
  "null",
  "not",
];

export function completion(document: CheckedDocument, offset: number): CompletionItem[] {
  const source = document.text.getText();
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  const before = source.slice(lineStart, offset);
  const analysis = () => analysisFor(document, lineStart, offset);

  const state = textState(before, document, offset);
  if (state === "comment") return [];
  if (state === "text" && mcpServerPart.test(before))
    return document.mcpServers.map((name) => ({
      ...item(name, CompletionItemKind.Module, "MCP server (.mcp.json)"),
      insertText: `${name}/`,
    }));
  if (state === "text") return openPlaceholder.test(before) ? names(analysis(), document, offset) : [];
  if (afterAgentColon.test(before))
    return [...document.analysis.agents.keys()].map((name) => item(name, CompletionItemKind.Class, "agent"));
  if (afterDo.test(before))
    return [...document.analysis.blocks.values()].map((block) =>
      item(
        block.name.name,
        CompletionItemKind.Function,
        `block(${block.params.map((param) => param.name).join(", ")})`,
      ),
    );
  if (afterPipe.test(before))
    return pipeOperators.map((operator) => item(operator, CompletionItemKind.Keyword, "pipeline stage"));
  const property = afterProperty.exec(before)?.[1];
  if (property !== undefined && propertyWords[property])
    return propertyWords[property].map((word) => item(word, CompletionItemKind.EnumMember, `${property}:`));
  if (property === "prompt") return [];

  if (wordOnly.test(before)) {
    const owner = ownerLine(document, document.text.positionAt(offset).line);
    if (owner && permissionsHeader.test(owner.text))
      return permissionKinds.map((kind) => propertyItem(kind, "permission"));
    if (owner && (agentHeader.test(owner.text) || sessionHeader.test(owner.text)))
      return propertyNames.map((name) => propertyItem(name, "property"));
    return [
      ...[...statementKeywords].map((word) => item(word, CompletionItemKind.Keyword, "keyword")),
      ...names(analysis(), document, offset),
    ];
  }
  if (valuePosition.test(before)) {
    const agents = [...document.analysis.agents.keys()].map((name) => item(name, CompletionItemKind.Class, "agent"));
    return [
      ...names(analysis(), document, offset),
      ...agents,
      ...expressionKeywords.map((word) => item(word, CompletionItemKind.Keyword, "keyword")),
    ];
  }
  return [];
}

function item(label: string, kind: CompletionItemKind, detail: string): CompletionItem {
  return { label, kind, detail };
}

function propertyItem(name: string, detail: string): CompletionItem {
  return { ...item(name, CompletionItemKind.Property, detail), insertText: `${name}: ` };
}

/** The names a value at `offset` can read, innermost first (not the one being bound: `let x = "{x}"` reads no x). */
function names(analysis: Analysis, document: CheckedDocument, offset: number): CompletionItem[] {
  const beingBound = new Set(nodesAt(analysis.program, offset).flatMap((node) => boundNames(node)));
  return visibleSymbols(scopeAt(analysis, document, offset), offset)
    .filter((symbol) => !beingBound.has(symbol.declaration))
    .map((symbol) => item(symbol.name, kindOf(symbol), symbol.kind === "assigned" ? "variable" : symbol.kind));
}

function kindOf(symbol: SymbolInfo): CompletionItemKind {
  switch (symbol.kind) {
    case "const":
      return CompletionItemKind.Constant;
    case "input":
    case "output":
      return CompletionItemKind.Field;
    case "program":
      return CompletionItemKind.Module;
    default:
      return CompletionItemKind.Variable;
  }
}

/**
 * Whether the cursor is in code, in a string or `**…**` (the tree knows strings over several
 * lines; a string being typed is not in the tree yet, so the line is read too), or in a comment.
 */
function textState(before: string, document: CheckedDocument, offset: number): "code" | "text" | "comment" {
  const inLiteral = nodesAt(document.analysis.program, offset).some(
    (node) =>
      (node.kind === "String" || node.kind === "Discretion") &&
      node.loc.start.offset < offset &&
      offset < node.loc.end.offset,
  );
  if (inLiteral) return "text";
  let quote: '"' | "**" | undefined;
  for (let index = 0; index < before.length; index++) {
    const char = before[index];
    if (quote === '"' && char === "\\") index++;
    else if (quote === undefined && char === "#") return "comment";
    else if (char === '"' && quote !== "**") quote = quote ? undefined : '"';
    else if (before.startsWith("**", index) && quote !== '"') {
      quote = quote ? undefined : "**";
      index++;
    }
  }
  return quote ? "text" : "code";
}

/**
 * The analysis to take names from: the document's, or, when some statement does not parse
 * (usually the line being typed), the document's with that line blanked out; offsets stay put.
 */
function analysisFor(document: CheckedDocument, lineStart: number, offset: number): Analysis {
  if (document.complete) return document.analysis;
  const source = document.text.getText();
  const lineEnd = source.indexOf("\n", offset);
  const end = lineEnd === -1 ? source.length : lineEnd;
  const blanked = source.slice(0, lineStart) + " ".repeat(end - lineStart) + source.slice(end);
  return checkSource(blanked).analysis;
}

/** The scope of the innermost construct at `offset`; on a line past its end, that of the line it is indented under. */
function scopeAt(analysis: Analysis, document: CheckedDocument, offset: number): Scope {
  const line = document.text.positionAt(offset).line;
  let chain = nodesAt(analysis.program, offset);
  if (chain.length === 1) {
    const owner = ownerLine(document, line);
    if (owner) chain = nodesAt(analysis.program, owner.end);
  }
  for (const node of chain.reverse()) {
    // A construct's own scope holds the lines of its body, not its first line (`for x in xs:` reads xs outside).
    const scope =
      (node.loc.start.line - 1 < line ? analysis.scopes.get(node) : undefined) ?? analysis.scopeOf.get(node);
    if (scope) return scope;
  }
  return analysis.scopes.get(analysis.program)!;
}

/** The nearest line above `line` indented less than it (comments and blank lines aside): the construct it belongs to. */
function ownerLine(
  document: CheckedDocument,
  line: number,
): { readonly text: string; readonly end: number } | undefined {
  const textOf = (number: number) =>
    document.text.getText({
      start: { line: number, character: 0 },
      end: { line: number, character: Number.MAX_SAFE_INTEGER },
    });
  const indentation = indentOf(textOf(line));
  for (let number = line - 1; number >= 0 && indentation > 0; number--) {
    const text = textOf(number);
    if (text.trim() === "" || text.trim().startsWith("#") || indentOf(text) >= indentation) continue;
    return { text, end: document.text.offsetAt({ line: number, character: text.trimEnd().length }) };
  }
  return undefined;
}

function indentOf(text: string): number {
  return /^[ \t]*/.exec(text)![0].length;
}
