/**
 * Hover: what a name is. An agent's model, permissions and prompt; a binding's kind and the lines
 * that set it; a block's parameters; a `use`d program's inputs and outputs.
 */
import { inputQuestion, typeWords, type SymbolInfo, type SymbolKind } from "../phases/2-analyze/index.js";
import { MarkupKind, type Hover } from "vscode-languageserver";
import { defaultModelName } from "../../runtime/cost.js";
import type {
  AgentDefinition,
  BlockDefinition,
  Expression,
  Property,
  PropertyBlock,
  TypeAnnotation,
  UseStatement,
} from "../ast.js";
import { toRange } from "./positions.js";
import { firstLine, writtenNames } from "./syntax-tree.js";
import { importedDocument, interfaceSymbols, occurrencesIn, targetAt, type Target } from "./targets.js";
import type { CheckedDocument, Workspace } from "./workspace.js";

export function hover(workspace: Workspace, document: CheckedDocument, offset: number): Hover | undefined {
  const found = targetAt(workspace, document, offset);
  if (!found) return undefined;
  return {
    contents: { kind: MarkupKind.Markdown, value: describe(workspace, found.target) },
    range: toRange(found.range),
  };
}

function describe(workspace: Workspace, target: Target): string {
  switch (target.kind) {
    case "agent":
      return describeAgent(target.document, target.agent);
    case "block":
      return describeBlock(target.document, target.block);
    case "program":
      return describeProgram(workspace, target.document, target.use);
    case "symbol":
      return describeSymbol(target.document, target.symbol);
  }
}

function describeAgent(document: CheckedDocument, agent: AgentDefinition): string {
  const property = (name: string) => agent.properties.find((candidate) => candidate.key.name === name);
  const model = property("model");
  const permissions = property("permissions");
  const prompt = property("prompt");
  const lines = [
    `- model: ${model ? code(sourceOf(document, model.value)) : `${code(defaultModelName)} (not set: the default)`}`,
    `- permissions: ${permissions?.value.kind === "PropertyBlock" ? permissionList(document, permissions.value) : "not set: the defaults (read and write inside the working directory)"}`,
  ];
  const persist = property("persist");
  if (persist) lines.push(`- persist: ${code(sourceOf(document, persist.value))}`);
  const returns = property("returns");
  if (returns?.value.kind === "TypeAnnotation" && returns.value.type !== null)
    lines.push(`- returns: ${code(typeWords(returns.value.type))}`);
  const promptText = prompt?.value.kind === "String" ? prompt.value.value : undefined;
  return [
    heading(`agent ${agent.name.name}`),
    lines.join("\n"),
    ...(promptText === undefined ? [] : [quoted(promptText)]),
  ].join("\n\n");
}

function permissionList(document: CheckedDocument, block: PropertyBlock): string {
  return block.properties
    .map((rule: Property) => `${rule.key.name} ${code(sourceOf(document, rule.value))}`)
    .join(", ");
}

function describeBlock(document: CheckedDocument, block: BlockDefinition): string {
  const parameters =
    block.params.length === 0
      ? "no parameters"
      : `parameters: ${block.params.map((param) => code(param.name)).join(", ")}`;
  return [heading(firstLine(document.text.getText(), block)), `block, ${parameters}`].join("\n\n");
}

function describeProgram(workspace: Workspace, document: CheckedDocument, use: UseStatement): string {
  const imported = importedDocument(workspace, { document, use });
  const title = heading(firstLine(document.text.getText(), use));
  if (!imported) return [title, `program ${code(use.source.value)}: cannot be read`].join("\n\n");
  const symbols = interfaceSymbols(imported);
  const inputs = imported.analysis.parameters.map((input) => {
    return `- ${code(input.name.name)}: ${inputQuestion(input)}`;
  });
  const outputs = symbols.filter((symbol) => symbol.kind === "output").map((symbol) => `- ${code(symbol.name)}`);
  return [
    title,
    `program ${code(use.source.value)}`,
    inputs.length === 0 ? "no inputs" : `inputs:\n${inputs.join("\n")}`,
    outputs.length === 0 ? "no outputs" : `outputs:\n${outputs.join("\n")}`,
  ].join("\n\n");
}

const kindNames: Readonly<Record<SymbolKind, string>> = {
  let: "variable",
  const: "constant",
  assigned: "variable",
  input: "input",
  output: "output",
  param: "parameter",
  "loop-item": "loop item",
  "loop-index": "loop index",
  "pipe-item": "item of a pipeline stage",
  "pipe-accumulator": "accumulator of `reduce`",
  "catch-error": "the error `catch` received",
  agent: "agent",
  block: "block",
  program: "program",
};

function describeSymbol(document: CheckedDocument, symbol: SymbolInfo): string {
  const declaration = symbol.declaration;
  const implicit = declaration.loc.start.offset === declaration.loc.end.offset;
  const written = writtenNames(document.analysis.program);
  const assignments = occurrencesIn({ kind: "symbol", document, symbol })
    .filter((occurrence) => occurrence.identifier !== declaration && written.has(occurrence.identifier))
    .map((occurrence) => occurrence.identifier.loc.start.line);
  const where = implicit ? "" : `, set at line ${declaration.loc.start.line}`;
  const again =
    assignments.length === 0
      ? ""
      : `; assigned again at ${assignments.length === 1 ? "line" : "lines"} ${assignments.join(", ")}`;
  const parts = [
    heading(implicit ? symbol.name : sourceLine(document, declaration.loc.start.line)),
    `${kindNames[symbol.kind]} ${code(symbol.name)}${where}${again}`,
  ];
  const input = [...document.analysis.parameters, ...document.analysis.runtimeInputs].find(
    (candidate) => candidate.name === declaration,
  );
  if (input) parts.push(quoted(inputQuestion(input)));
  const typed = document.analysis.typed.symbols.get(symbol);
  if (typed !== undefined) parts.push(`type: ${code(typeWords(typed))} (its \`returns:\`)`);
  return parts.join("\n\n");
}

/** A source line without its indentation. */
function sourceLine(document: CheckedDocument, line: number): string {
  return document.text.getText({ start: { line: line - 1, character: 0 }, end: { line, character: 0 } }).trim();
}

function sourceOf(document: CheckedDocument, node: Expression | PropertyBlock | TypeAnnotation): string {
  return document.text.getText().slice(node.loc.start.offset, node.loc.end.offset);
}

function heading(text: string): string {
  return `\`\`\`prose\n${text}\n\`\`\``;
}

function code(text: string): string {
  return `\`${text.replaceAll("`", "'")}\``;
}

function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`.trimEnd())
    .join("\n");
}
