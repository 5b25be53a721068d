import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DidChangeWatchedFilesNotification,
  ExitNotification,
  FileChangeType,
  ShutdownRequest,
  type Diagnostic,
} from "vscode-languageserver-protocol";
import { prosec, repositoryRoot } from "../support/cli.js";
import { corpusDirectory, corpusPrograms, roadmapDirectory, roadmapSketches } from "../support/corpus.js";
import { fileUri, startLsp, type LspSession } from "../support/lsp-client.js";
import { temporaryFolder } from "../support/temp.js";

interface CheckJson {
  files: {
    file: string;
    diagnostics: {
      code: string;
      severity: string;
      message: string;
      line: number;
      column: number;
      endLine: number;
      endColumn: number;
      hint?: string;
    }[];
  }[];
}

/** What `prosec check --format json` says, in the LSP's terms. */
function asLsp(diagnostic: CheckJson["files"][number]["diagnostics"][number]): Diagnostic {
  return {
    range: {
      start: { line: diagnostic.line - 1, character: diagnostic.column - 1 },
      end: { line: diagnostic.endLine - 1, character: diagnostic.endColumn - 1 },
    },
    severity: diagnostic.severity === "error" ? 1 : 2,
    code: diagnostic.code,
    source: "prosec",
    message: diagnostic.hint === undefined ? diagnostic.message : `${diagnostic.message}\nhelp: ${diagnostic.hint}`,
  };
}

describe("prosec lsp: diagnostics", () => {
  let lsp: LspSession;
  let folder: string;

  beforeAll(async () => {
    folder = temporaryFolder("prosec-lsp-diagnostics-");
    lsp = startLsp(repositoryRoot);
    await lsp.initialize(repositoryRoot);
  });

  afterAll(() => {
    if (lsp.process.exitCode === null) lsp.process.kill();
  });

  it("publishes for every corpus program and roadmap sketch exactly what `prosec check` reports", async () => {
    const checked = prosec([
      "check",
      "--format",
      "json",
      relative(repositoryRoot, corpusDirectory),
      relative(repositoryRoot, roadmapDirectory),
    ]);
    const expected = new Map(
      (JSON.parse(checked.stdout) as CheckJson).files.map((file) => [
        fileUri(join(repositoryRoot, file.file)),
        file.diagnostics.map(asLsp),
      ]),
    );
    const programs = [...corpusPrograms, ...roadmapSketches];
    expect(expected.size).toBe(programs.length);
    expect([...expected.values()].flat().length).toBeGreaterThan(10);
    for (const program of programs) await lsp.open(program.path, program.source);
    for (const program of programs) {
      const published = await lsp.diagnostics(fileUri(program.path));
      expect(published.diagnostics, program.name).toEqual(expected.get(fileUri(program.path)));
    }
  });

  it("re-diagnoses on every change, for the version the editor sent", async () => {
    const path = join(folder, "typing.prose");
    await lsp.open(path, "agent writer:\n  model: sonnet\n\nsession: writr\n");
    expect((await lsp.diagnostics(fileUri(path), 1)).diagnostics).toEqual([
      {
        range: { start: { line: 3, character: 9 }, end: { line: 3, character: 14 } },
        severity: 1,
        code: "E007",
        source: "prosec",
        message: "agent `writr` is not defined (did you mean `writer`?)",
      },
    ]);
    await lsp.change(path, "agent writer:\n  model: sonnet\n\nsession: writer\n", 2);
    expect(await lsp.diagnostics(fileUri(path), 2)).toEqual({ uri: fileUri(path), version: 2, diagnostics: [] });
    await lsp.change(path, "agent writer:\n  model: sonnet\n\nsession: writer\nlet = 1\n", 3);
    const syntax = (await lsp.diagnostics(fileUri(path), 3)).diagnostics;
    expect(syntax.map((diagnostic) => [diagnostic.code, diagnostic.range.start, diagnostic.message])).toEqual([
      ["E004", { line: 4, character: 4 }, "unexpected `=`: expected a name or `{`"],
    ]);
  });

  it("with a syntax error, still shows every other diagnostic (the broken statement is skipped)", async () => {
    const path = join(folder, "broken.prose");
    await lsp.open(
      path,
      'agent writer:\n  model: gpt-5\nagent writer:\n  model: opus\nif **ready**:\n  let x = session "a" %%\n  session: writr\nsession "Use {x}"\n',
    );
    const published = (await lsp.diagnostics(fileUri(path), 1)).diagnostics;
    expect(published.map((diagnostic) => `${diagnostic.code} ${diagnostic.range.start.line + 1}`)).toEqual([
      "E008 2",
      "E006 3",
      "E004 6",
      "E007 7",
    ]);
  });

  it("checks calls against the programs they `use`, as they read in the editor", async () => {
    const lib = join(folder, "lib.prose");
    const main = join(folder, "main.prose");
    writeFileSync(lib, 'input subject: "The subject"\noutput report = session "Report on {subject}"\n');
    writeFileSync(
      main,
      'use "./lib" as lib\nuse "./gone"\n\nlet result = lib(subject: "tides")\nsession "Use {result.report}"\n  context: result.summary\n',
    );
    const text = readFileSync(main, "utf8");
    await lsp.open(main, text);
    const codes = (diagnostics: readonly Diagnostic[]) =>
      diagnostics.map(
        (diagnostic) =>
          `${diagnostic.code} ${diagnostic.range.start.line + 1}:${diagnostic.range.start.character + 1} ${diagnostic.message}`,
      );
    expect(codes((await lsp.diagnostics(fileUri(main), 1)).diagnostics)).toEqual([
      "P030 2:5 cannot read the imported program `./gone` (looked for `gone.prose`)\nhelp: check the path: it is relative to this file",
      "E028 6:19 program `lib` has no output `summary`",
    ]);
    // The imported program, open with an input it does not have on disk: the importer is checked against that text.
    await lsp.open(
      lib,
      'input subject: "The subject"\ninput depth: "How deep"\noutput summary = session "Report on {subject}"\n',
    );
    expect(codes((await lsp.diagnostics(fileUri(main))).diagnostics)).toEqual([
      "P030 2:5 cannot read the imported program `./gone` (looked for `gone.prose`)\nhelp: check the path: it is relative to this file",
      "E026 4:14 program `lib` needs input `depth`\nhelp: pass it: `lib(depth: ...)`",
    ]);
    const fromCheck = JSON.parse(prosec(["check", "--format", "json", "main.prose"], folder).stdout) as CheckJson;
    expect(fromCheck.files[0]!.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["P030", "E028"]);
  });

  it("checks again when a file it imports changes on disk", async () => {
    const lib = join(folder, "disk-lib.prose");
    const main = join(folder, "disk-main.prose");
    writeFileSync(lib, 'input subject: "The subject"\noutput report = session "On {subject}"\n');
    await lsp.open(main, 'use "./disk-lib" as lib\nlet r = lib(subject: "x")\n');
    expect((await lsp.diagnostics(fileUri(main))).diagnostics).toEqual([]);
    writeFileSync(
      lib,
      'input subject: "The subject"\ninput depth: "How deep"\noutput report = session "On {subject}"\n',
    );
    await lsp.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: fileUri(lib), type: FileChangeType.Changed }],
    });
    expect((await lsp.diagnostics(fileUri(main))).diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["E026"]);
  });

  it("checks documents that are not files yet (no imports resolved)", async () => {
    const uri = "untitled:Untitled-1";
    await lsp.connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "prose", version: 1, text: 'use "./lib" as lib\nsession: nobody\n' },
    });
    expect((await lsp.diagnostics(uri)).diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["E007"]);
  });

  it("counts warnings as errors when the editor asks for strict checking", async () => {
    const strict = startLsp(folder);
    await strict.initialize(folder, { strict: true });
    const path = join(folder, "loop.prose");
    await strict.open(path, 'loop until **done**:\n  session "Again"\n');
    const [diagnostic] = (await strict.diagnostics(fileUri(path))).diagnostics;
    expect([diagnostic!.code, diagnostic!.severity]).toEqual(["P004", 1]);
    await strict.connection.sendRequest(ShutdownRequest.type);
    await strict.connection.sendNotification(ExitNotification.type);
    expect(await strict.exited()).toBe(0);
  });

  it("clears a closed document's diagnostics, and exits 0 after shutdown and exit", async () => {
    const path = join(folder, "closing.prose");
    await lsp.open(path, "let = 1\n");
    expect((await lsp.diagnostics(fileUri(path))).diagnostics).toHaveLength(1);
    await lsp.connection.sendNotification("textDocument/didClose", { textDocument: { uri: fileUri(path) } });
    expect((await lsp.diagnostics(fileUri(path))).diagnostics).toEqual([]);
    await lsp.connection.sendRequest(ShutdownRequest.type);
    await lsp.connection.sendNotification(ExitNotification.type);
    expect(await lsp.exited()).toBe(0);
    expect(lsp.stderr()).toBe("");
  });
});
