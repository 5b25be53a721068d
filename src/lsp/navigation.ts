/**
 * Go to definition and find references, across the files `use` connects (open documents' text
 * wins over the disk's).
 */
import type { Location } from "vscode-languageserver";
import { toRange } from "./positions.js";
import { declarationOf, occurrences, targetAt } from "./targets.js";
import type { CheckedDocument, Workspace } from "./workspace.js";

export function definition(workspace: Workspace, document: CheckedDocument, offset: number): Location | undefined {
  const found = targetAt(workspace, document, offset);
  const declaration = found && declarationOf(workspace, found.target);
  return declaration && { uri: declaration.document.uri, range: toRange(declaration.range) };
}

export function references(
  workspace: Workspace,
  document: CheckedDocument,
  offset: number,
  includeDeclaration: boolean,
): Location[] {
  const found = targetAt(workspace, document, offset);
  if (!found) return [];
  const declaration = declarationOf(workspace, found.target);
  return occurrences(workspace, found.target)
    .filter(
      (occurrence) =>
        includeDeclaration ||
        occurrence.document !== declaration?.document ||
        occurrence.identifier.loc.start.offset !== declaration.range.start.offset,
    )
    .map((occurrence) => ({ uri: occurrence.document.uri, range: toRange(occurrence.identifier.loc) }));
}
