/**
 * Rename of bindings, parameters, agents, blocks and `use` aliases: every name that refers to the
 * thing, `{name}` placeholders in strings and programs that pass or read it by name included.
 * Refused for what is not such a name (keywords, property keys, a `use` without `as`), for a new
 * name that is not one, and for a rename that would add errors (a name already taken).
 */
import { basename } from "node:path";
import { LSPErrorCodes, ResponseError, type Range, type TextEdit, type WorkspaceEdit } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import { reservedInExpressions, statementKeywords } from "../phases/1-parse/index.js";
import { checkSource } from "../pipeline.js";
import { toRange } from "./positions.js";
import { occurrences, targetAt, type Found } from "./targets.js";
import type { CheckedDocument, Workspace } from "./workspace.js";

const namePattern = /^[\p{L}_][\p{L}\p{N}_]*(?:-[\p{L}\p{N}_]+)*$/u;

/** The range of the name that would be renamed, or undefined when nothing here can be. */
export function prepareRename(workspace: Workspace, document: CheckedDocument, offset: number): Range | undefined {
  const found = renamable(targetAt(workspace, document, offset));
  return found && toRange(found.range);
}

export function rename(
  workspace: Workspace,
  document: CheckedDocument,
  offset: number,
  newName: string,
): WorkspaceEdit {
  const found = renamable(targetAt(workspace, document, offset));
  if (!found) throw refused("only a binding, parameter, agent, block or `use ... as` alias can be renamed");
  if (!namePattern.test(newName))
    throw refused(`\`${newName}\` is not a name: letters, digits, \`_\` and inner hyphens, not starting with a digit`);
  if (statementKeywords.has(newName) || reservedInExpressions.has(newName))
    throw refused(`\`${newName}\` is a keyword`);
  const byDocument = new Map<CheckedDocument, TextEdit[]>();
  for (const { document: holder, identifier } of occurrences(workspace, found.target)) {
    byDocument.set(holder, [...(byDocument.get(holder) ?? []), { range: toRange(identifier.loc), newText: newName }]);
  }
  for (const [holder, edits] of byDocument) {
    if (addsErrors(holder, edits))
      throw refused(`renaming to \`${newName}\` would make ${basename(holder.path)} invalid: the name is taken there`);
  }
  return { changes: Object.fromEntries([...byDocument].map(([holder, edits]) => [holder.uri, edits])) };
}

function renamable(found: Found | undefined): Found | undefined {
  if (!found) return undefined;
  const { target } = found;
  switch (target.kind) {
    case "program":
      // The `use` path and a program named after its file name no identifier to change.
      return target.use.alias && found.range !== target.use.source.loc ? found : undefined;
    case "symbol": {
      const declaration = target.symbol.declaration.loc;
      // `item` in a pipeline stage is declared by the stage itself.
      return declaration.start.offset === declaration.end.offset ? undefined : found;
    }
    default:
      return found;
  }
}

function addsErrors(document: CheckedDocument, edits: readonly TextEdit[]): boolean {
  const errors = (source: string) =>
    checkSource(source).diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
  return errors(TextDocument.applyEdits(document.text, [...edits])) > errors(document.text.getText());
}

function refused(message: string): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestFailed, message);
}
