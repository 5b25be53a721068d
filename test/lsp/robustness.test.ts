import { describe, expect, it } from "vitest";
import { TextDocument } from "vscode-languageserver-textdocument";
import { completion } from "../../src/lsp/completion.js";
import { documentSymbols } from "../../src/lsp/document-symbols.js";
import { hover } from "../../src/lsp/hover.js";
import { definition, references } from "../../src/lsp/navigation.js";
import { prepareRename } from "../../src/lsp/rename.js";
import { Workspace } from "../../src/lsp/workspace.js";
import { checkSource } from "../../src/pipeline.js";
import { corpusPrograms } from "../support/corpus.js";
import { fileUri } from "../support/lsp-client.js";
import { inEditLoop } from "../support/edit-loop.js";

/** Every feature at every few characters of the text, as a user moving the cursor while typing would ask. */
function askEverywhere(text: string, step: number): number {
  const uri = fileUri("/corpus/program.prose");
  const open = new Map([[uri, TextDocument.create(uri, "prose", 1, text)]]);
  const workspace = new Workspace({ get: (key) => open.get(key), all: () => [...open.values()] }, { strict: false });
  const document = workspace.documentAt(uri)!;
  documentSymbols(document);
  let answered = 0;
  for (let offset = 0; offset <= text.length; offset += step) {
    if (hover(workspace, document, offset)) answered++;
    const location = definition(workspace, document, offset);
    if (location) expect(location.uri).toBe(uri);
    references(workspace, document, offset, true);
    completion(document, offset);
    prepareRename(workspace, document, offset);
  }
  return answered;
}

/** Every 89th prefix of a program; half of those in the edit loop. */
const prefixStep = inEditLoop ? 178 : 89;

describe("prosec lsp: every request anywhere in real programs, whole or half typed", () => {
  it("answers without failing in every corpus program, and finds something to say in those that name things", () => {
    for (const program of corpusPrograms) {
      const analysis = checkSource(program.source).analysis!;
      const namesSomething =
        analysis.references.size + analysis.agentReferences.size + analysis.blockReferences.size > 0;
      expect(askEverywhere(program.source, 9) > 0, program.name).toBe(namesSomething);
    }
  });

  it("answers without failing while a program is being typed (every prefix of a few programs)", () => {
    for (const program of corpusPrograms.filter((_, index) => index % 16 === 3)) {
      for (let end = 0; end < program.source.length; end += prefixStep) askEverywhere(program.source.slice(0, end), 23);
    }
  });
});
