import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  PrepareRenameRequest,
  ReferencesRequest,
  RenameRequest,
  type Location,
  type MarkupContent,
} from "vscode-languageserver-protocol";
import { fileUri, positionOf, startLsp, type LspSession } from "../support/lsp-client.js";
import { temporaryFolder } from "../support/temp.js";

const main = `# Research with a helper program
use "./lib" as lib

input topic: "What to research"

agent researcher:
  model: opus
  prompt: "You research {topic} carefully"
  permissions:
    read: ["docs/**"]
    bash: deny

agent editor:
  prompt: "You edit"

block review(draft, focus):
  let notes = session "Review {draft} for {focus}"
  output notes

let draft = session: researcher
  prompt: "Draft about {topic}"

draft = do review(draft, "clarity")
let result = lib(subject: topic)
output summary = session: editor
  prompt: "Summarize {draft} and {result}"
  context: result.report
`;

const lib = `input subject: "The subject"
output report = session "Report on {subject}"
`;

/** Another program using lib, on disk only: found through the workspace folder. */
const other = `use "./lib" as helper
let answer = helper(subject: "tides")
`;

describe("prosec lsp: hover, definition, references, symbols, rename", () => {
  let lsp: LspSession;
  let folder: string;
  const uri = (name: string) => fileUri(join(folder, name));
  const at = (name: string, text: string, needle: string, delta = 0, occurrence = 1) => ({
    textDocument: { uri: uri(name) },
    position: positionOf(text, needle, delta, occurrence),
  });
  const range = (text: string, needle: string, occurrence = 1, delta = 0, length = needle.length - delta) => ({
    start: positionOf(text, needle, delta, occurrence),
    end: positionOf(text, needle, delta + length, occurrence),
  });
  const hoverText = async (name: string, text: string, needle: string, delta = 0, occurrence = 1) =>
    (
      (await lsp.connection.sendRequest(HoverRequest.type, at(name, text, needle, delta, occurrence)))?.contents as
        MarkupContent | undefined
    )?.value;

  beforeAll(async () => {
    folder = temporaryFolder("prosec-lsp-navigation-");
    writeFileSync(join(folder, "main.prose"), main);
    writeFileSync(join(folder, "lib.prose"), lib);
    writeFileSync(join(folder, "other.prose"), other);
    lsp = startLsp(folder);
    await lsp.initialize(folder);
    await lsp.open(join(folder, "main.prose"), main);
    expect((await lsp.diagnostics(uri("main.prose"))).diagnostics).toEqual([]);
  });

  afterAll(() => lsp.process.kill());

  describe("hover", () => {
    it("shows an agent's model, permissions and prompt, where it is defined and where it is used", async () => {
      const expected =
        '```prose\nagent researcher\n```\n\n- model: `opus`\n- permissions: read `["docs/**"]`, bash `deny`\n\n> You research {topic} carefully';
      expect(await hoverText("main.prose", main, "researcher:")).toBe(expected);
      expect(await hoverText("main.prose", main, "session: researcher", 12)).toBe(expected);
      expect(await hoverText("main.prose", main, "editor", 0, 2)).toBe(
        "```prose\nagent editor\n```\n\n- model: `sonnet` (not set: the default)\n- permissions: not set: the defaults (read and write inside the working directory)\n\n> You edit",
      );
    });

    it("shows a binding's kind and the lines that set it, from a use or a `{placeholder}`", async () => {
      const expected =
        "```prose\nlet draft = session: researcher\n```\n\nvariable `draft`, set at line 20; assigned again at line 23";
      expect(await hoverText("main.prose", main, "draft = do")).toBe(expected);
      expect(await hoverText("main.prose", main, "{draft} and", 1)).toBe(expected);
      expect(await hoverText("main.prose", main, "topic:")).toBe(
        '```prose\ninput topic: "What to research"\n```\n\ninput `topic`, set at line 4\n\n> What to research',
      );
      expect(await hoverText("main.prose", main, "{focus}", 1)).toBe(
        "```prose\nblock review(draft, focus):\n```\n\nparameter `focus`, set at line 16",
      );
      expect(await hoverText("main.prose", main, "summary")).toBe(
        "```prose\noutput summary = session: editor\n```\n\noutput `summary`, set at line 25",
      );
    });

    it("shows a block's parameters", async () => {
      expect(await hoverText("main.prose", main, 'review(draft, "clarity")')).toBe(
        "```prose\nblock review(draft, focus):\n```\n\nblock, parameters: `draft`, `focus`",
      );
    });

    it("shows a used program's inputs and outputs, from its path, its alias and its calls", async () => {
      const expected =
        '```prose\nuse "./lib" as lib\n```\n\nprogram `./lib`\n\ninputs:\n- `subject`: The subject\n\noutputs:\n- `report`';
      expect(await hoverText("main.prose", main, '"./lib"', 2)).toBe(expected);
      expect(await hoverText("main.prose", main, "lib(subject")).toBe(expected);
      expect(await hoverText("main.prose", main, "as lib", 3)).toBe(expected);
      expect(await hoverText("main.prose", main, "subject: topic")).toBe(
        '```prose\ninput subject: "The subject"\n```\n\ninput `subject`, set at line 1\n\n> The subject',
      );
    });

    it("has nothing to say about keywords, property names and plain text", async () => {
      for (const needle of ["session: researcher", "model:", "Review {"]) {
        expect(await lsp.connection.sendRequest(HoverRequest.type, at("main.prose", main, needle, 1))).toBeNull();
      }
    });
  });

  describe("go to definition", () => {
    const definition = (needle: string, delta = 0, occurrence = 1) =>
      lsp.connection.sendRequest(DefinitionRequest.type, at("main.prose", main, needle, delta, occurrence));

    it("finds bindings, parameters, agents and blocks in the same program", async () => {
      expect(await definition("{topic} carefully", 1)).toEqual({ uri: uri("main.prose"), range: range(main, "topic") });
      expect(await definition('draft, "clarity"')).toEqual({ uri: uri("main.prose"), range: range(main, "draft", 3) });
      expect(await definition("{draft} for", 1)).toEqual({ uri: uri("main.prose"), range: range(main, "draft", 1) });
      expect(await definition("session: researcher", 9)).toEqual({
        uri: uri("main.prose"),
        range: range(main, "researcher"),
      });
      expect(await definition("do review", 3)).toEqual({ uri: uri("main.prose"), range: range(main, "review") });
    });

    it("follows `use` into the imported program: the file, its inputs and its outputs", async () => {
      const start = { line: 0, character: 0 };
      expect(await definition('"./lib"', 1)).toEqual({ uri: uri("lib.prose"), range: { start, end: start } });
      expect(await definition("lib(subject")).toEqual({ uri: uri("lib.prose"), range: { start, end: start } });
      expect(await definition("subject: topic")).toEqual({ uri: uri("lib.prose"), range: range(lib, "subject") });
      expect(await definition("result.report", 7)).toEqual({ uri: uri("lib.prose"), range: range(lib, "report") });
    });

    it("reads an open imported program's text rather than the file's", async () => {
      const edited = `# the input moved down a line\n${lib}`;
      await lsp.open(join(folder, "lib.prose"), edited);
      expect(await definition("subject: topic")).toEqual({ uri: uri("lib.prose"), range: range(edited, "subject") });
      await lsp.connection.sendNotification("textDocument/didClose", { textDocument: { uri: uri("lib.prose") } });
      expect(await definition("subject: topic")).toEqual({ uri: uri("lib.prose"), range: range(lib, "subject") });
    });
  });

  describe("find references", () => {
    const references = (name: string, text: string, needle: string, includeDeclaration: boolean, delta = 0) =>
      lsp.connection.sendRequest(ReferencesRequest.type, {
        ...at(name, text, needle, delta),
        context: { includeDeclaration },
      });
    const located = (name: string, text: string, ...needles: Array<[string, number]>): Location[] =>
      needles.map(([needle, occurrence]) => ({ uri: uri(name), range: range(text, needle, occurrence) }));

    it("lists a binding's declaration, assignments, uses and placeholders in order", async () => {
      const all = located("main.prose", main, ["draft", 3], ["draft", 4], ["draft", 5], ["draft", 6]);
      expect(await references("main.prose", main, "{draft} and", true, 1)).toEqual(all);
      expect(await references("main.prose", main, "{draft} and", false, 1)).toEqual(all.slice(1));
    });

    it("lists an agent's and a block's uses", async () => {
      expect(await references("main.prose", main, "researcher:", true)).toEqual(
        located("main.prose", main, ["researcher", 1], ["researcher", 2]),
      );
      expect(await references("main.prose", main, "review(draft, focus)", false)).toEqual(
        located("main.prose", main, ["review", 2]),
      );
    });

    it("lists the calls that pass a program's input from every program of the workspace", async () => {
      expect(await references("lib.prose", lib, "subject", true)).toEqual([
        ...located("lib.prose", lib, ["subject", 1], ["subject", 3]),
        { uri: uri("main.prose"), range: range(main, "subject") },
        { uri: uri("other.prose"), range: range(other, "subject") },
      ]);
      expect(await references("lib.prose", lib, "report", false)).toEqual([
        { uri: uri("main.prose"), range: range(main, "report") },
      ]);
    });
  });

  it("outlines a program: imports, inputs, agents with their properties, blocks with their names, bindings", async () => {
    const symbols = await lsp.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri: uri("main.prose") },
    });
    type Outline = { name: string; kind: number; detail?: string; children?: Outline[] };
    const outline = (list: readonly Outline[]): unknown[] =>
      list.map((symbol) => [
        symbol.name,
        symbol.kind,
        symbol.detail,
        ...(symbol.children ? [outline(symbol.children)] : []),
      ]);
    expect(outline(symbols as Outline[])).toEqual([
      ["lib", 2, 'use "./lib"'],
      ["topic", 8, "input"],
      [
        "researcher",
        5,
        "agent",
        [
          ["model", 7, "property"],
          ["prompt", 7, "property"],
          ["permissions", 7, "property"],
        ],
      ],
      ["editor", 5, "agent", [["prompt", 7, "property"]]],
      [
        "review",
        12,
        "block(draft, focus)",
        [
          ["draft", 13, "parameter"],
          ["focus", 13, "parameter"],
          ["notes", 13, "let"],
        ],
      ],
      ["draft", 13, "let"],
      ["result", 13, "let"],
      ["summary", 8, "output"],
    ]);
    const [, , researcher] = symbols as Array<{ range: unknown; selectionRange: unknown }>;
    expect(researcher!.selectionRange).toEqual(range(main, "researcher"));
    expect(researcher!.range).toEqual({
      start: positionOf(main, "agent researcher"),
      end: positionOf(main, "bash: deny", 10),
    });
  });

  describe("rename", () => {
    const prepare = (needle: string, delta = 0, occurrence = 1) =>
      lsp.connection.sendRequest(PrepareRenameRequest.type, at("main.prose", main, needle, delta, occurrence));
    const rename = (needle: string, newName: string, delta = 0) =>
      lsp.connection.sendRequest(RenameRequest.type, { ...at("main.prose", main, needle, delta), newName });
    const edits = (text: string, needle: string, newName: string, ...occurrences: number[]) =>
      occurrences.map((occurrence) => ({ range: range(text, needle, occurrence), newText: newName }));

    it("renames a binding everywhere, `{placeholders}` in strings included", async () => {
      expect(await prepare("{draft} and", 1)).toEqual(range(main, "draft", 6));
      expect(await rename("{draft} and", "text", 1)).toEqual({
        changes: { [uri("main.prose")]: edits(main, "draft", "text", 3, 4, 5, 6) },
      });
    });

    it("renames a parameter inside its block only", async () => {
      expect(await rename("{draft} for", "text", 1)).toEqual({
        changes: { [uri("main.prose")]: edits(main, "draft", "text", 1, 2) },
      });
    });

    it("renames agents and blocks at their definition and every use", async () => {
      expect(await rename("session: researcher", "scholar", 9)).toEqual({
        changes: { [uri("main.prose")]: edits(main, "researcher", "scholar", 1, 2) },
      });
      expect(await rename("review(draft, focus)", "critique")).toEqual({
        changes: { [uri("main.prose")]: edits(main, "review", "critique", 1, 2) },
      });
    });

    it("renames a program's input in the programs that pass it", async () => {
      const changes = await lsp.connection.sendRequest(RenameRequest.type, {
        textDocument: { uri: uri("lib.prose") },
        position: positionOf(lib, "subject"),
        newName: "theme",
      });
      expect(changes).toEqual({
        changes: {
          [uri("lib.prose")]: edits(lib, "subject", "theme", 1, 3),
          [uri("main.prose")]: edits(main, "subject", "theme", 1),
          [uri("other.prose")]: edits(other, "subject", "theme", 1),
        },
      });
    });

    it("refuses keywords, property names, implicit names, new names that are not names and names already taken", async () => {
      expect(await prepare("session: researcher")).toBeNull();
      expect(await prepare("model: opus")).toBeNull();
      expect(await prepare('"./lib"', 2)).toBeNull();
      await expect(rename("draft = do", "let")).rejects.toThrow("`let` is a keyword");
      await expect(rename("draft = do", "two words")).rejects.toThrow("`two words` is not a name");
      await expect(rename("draft = do", "result")).rejects.toThrow(
        "renaming to `result` would make main.prose invalid: the name is taken there",
      );
      await expect(rename("session: researcher", "editor", 9)).rejects.toThrow(
        "renaming to `editor` would make main.prose invalid",
      );
    });
  });
});
