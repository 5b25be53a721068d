/**
 * What a name under the cursor refers to, and every place that refers to the same thing: the
 * ground of hover, go to definition, find references and rename. Resolution is the analyzer's
 * (its reference tables); this file only reads them, following `use` into the imported program.
 */
import type { AgentDefinition, BlockDefinition, Identifier, SourceRange, UseStatement } from "../ast.js";
import type { ProgramReference, SymbolInfo } from "../phases/2-analyze/index.js";
import { identifierAt, nodesAt } from "./syntax-tree.js";
import type { CheckedDocument, Workspace } from "./workspace.js";

export type Target =
  /** A binding, parameter, input, output, loop or catch name, in the program that declares it. */
  | { readonly kind: "symbol"; readonly document: CheckedDocument; readonly symbol: SymbolInfo }
  | { readonly kind: "agent"; readonly document: CheckedDocument; readonly agent: AgentDefinition }
  | { readonly kind: "block"; readonly document: CheckedDocument; readonly block: BlockDefinition }
  /** A `use`d program, as the importing program names it. */
  | { readonly kind: "program"; readonly document: CheckedDocument; readonly use: UseStatement };

export interface Found {
  readonly target: Target;
  /** The text under the cursor that names it. */
  readonly range: SourceRange;
}

/** A name somewhere in the workspace that refers to a target. */
export interface Occurrence {
  readonly document: CheckedDocument;
  readonly identifier: Identifier;
}

/** What the name (or `use` path) at `offset` refers to. */
export function targetAt(workspace: Workspace, document: CheckedDocument, offset: number): Found | undefined {
  const program = document.analysis.program;
  const use = nodesAt(program, offset).find((node): node is UseStatement => node.kind === "Use");
  if (use && use.source.loc.start.offset <= offset && offset <= use.source.loc.end.offset) {
    return { target: { kind: "program", document, use }, range: use.source.loc };
  }
  const identifier = identifierAt(program, offset);
  if (!identifier) return undefined;
  const target = resolve(workspace, document, identifier);
  return target && { target, range: identifier.loc };
}

function resolve(workspace: Workspace, document: CheckedDocument, identifier: Identifier): Target | undefined {
  const analysis = document.analysis;
  const reference = analysis.programReferences.get(identifier);
  if (reference)
    return reference.part === "program"
      ? { kind: "program", document, use: reference.use }
      : partOfImported(workspace, document, reference, identifier.name);
  const agent = analysis.agentReferences.get(identifier);
  if (agent) return { kind: "agent", document, agent };
  const block = analysis.blockReferences.get(identifier);
  if (block) return { kind: "block", document, block };
  const symbol = analysis.references.get(identifier);
  return symbol && { kind: "symbol", document, symbol };
}

/** An input or output of a `use`d program, as that program declares it. */
function partOfImported(
  workspace: Workspace,
  document: CheckedDocument,
  reference: ProgramReference,
  name: string,
): Target | undefined {
  const imported = importedDocument(workspace, { document, use: reference.use });
  if (!imported) return undefined;
  const symbol = interfaceSymbols(imported).find(
    (candidate) => candidate.name === name && candidate.kind === reference.part,
  );
  return symbol && { kind: "symbol", document: imported, symbol };
}

/** A program's parameters and top-level outputs: what other programs name when they call it. */
export function interfaceSymbols(document: CheckedDocument): SymbolInfo[] {
  const analysis = document.analysis;
  const programScope = analysis.scopes.get(analysis.program);
  const parameters = analysis.parameters.flatMap((input) => analysis.references.get(input.name) ?? []);
  const outputs = analysis.outputs.flatMap((name) => {
    const symbol = programScope?.symbols.get(name);
    return symbol?.kind === "output" ? [symbol] : [];
  });
  return [...parameters, ...outputs];
}

/** The names that refer to `target`, its declaration included, across the workspace, in the order the programs hold them. */
export function occurrences(workspace: Workspace, target: Target): Occurrence[] {
  const fromOthers = target.kind === "symbol" ? fromImporters(workspace, target.document, target.symbol) : [];
  return [...occurrencesIn(target), ...fromOthers].sort(bySource);
}

/** The names in the target's own program that refer to it, in source order. */
export function occurrencesIn(target: Target): Occurrence[] {
  const { document } = target;
  const analysis = document.analysis;
  // Names with no text (`item` of a pipeline stage, declared by the stage itself) are left out.
  const referring = <T>(table: ReadonlyMap<Identifier, T>, refersToTarget: (value: T) => boolean): Occurrence[] =>
    [...table]
      .filter(([identifier, value]) => refersToTarget(value) && identifier.loc.end.offset > identifier.loc.start.offset)
      .map(([identifier]) => ({ document, identifier }))
      .sort(bySource);
  switch (target.kind) {
    case "agent":
      return referring(analysis.agentReferences, (agent) => agent === target.agent);
    case "block":
      return referring(analysis.blockReferences, (block) => block === target.block);
    case "program":
      return referring(
        analysis.programReferences,
        (reference) => reference.part === "program" && reference.use === target.use,
      );
    case "symbol":
      return referring(analysis.references, (symbol) => symbol === target.symbol);
  }
}

/** Where programs that `use` this one pass this input (`name: ...`) or read this output (`result.name`). */
function fromImporters(workspace: Workspace, document: CheckedDocument, symbol: SymbolInfo): Occurrence[] {
  if (!interfaceSymbols(document).includes(symbol)) return [];
  return workspace
    .importersOf(document.path)
    .flatMap((importer) =>
      [...importer.analysis.programReferences]
        .filter(
          ([identifier, reference]) =>
            identifier.name === symbol.name &&
            reference.part === symbol.kind &&
            importer.imports.get(reference.use) === document.path,
        )
        .map(([identifier]) => ({ document: importer, identifier })),
    );
}

function bySource(a: Occurrence, b: Occurrence): number {
  if (a.document.uri !== b.document.uri) return a.document.uri < b.document.uri ? -1 : 1;
  return a.identifier.loc.start.offset - b.identifier.loc.start.offset;
}

/** Where a target is declared (a `use`d program: its file, when there is one). */
export function declarationOf(
  workspace: Workspace,
  target: Target,
): { readonly document: CheckedDocument; readonly range: SourceRange } | undefined {
  switch (target.kind) {
    case "symbol":
      return { document: target.document, range: target.symbol.declaration.loc };
    case "agent":
      return { document: target.document, range: target.agent.name.loc };
    case "block":
      return { document: target.document, range: target.block.name.loc };
    case "program": {
      const imported = importedDocument(workspace, target);
      const start = { line: 1, column: 1, offset: 0 };
      return imported && { document: imported, range: { start, end: start } };
    }
  }
}

/** The program a `use` names, when it can be read. */
export function importedDocument(
  workspace: Workspace,
  target: { readonly document: CheckedDocument; readonly use: UseStatement },
): CheckedDocument | undefined {
  const file = target.document.imports.get(target.use);
  return file === undefined ? undefined : workspace.document(file);
}
