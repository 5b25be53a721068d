// The language server as an editor drives it: `prosec lsp --stdio` in its own process, a
// keystroke (`didChange` with the whole text, as editors send it) followed by a hover, which the
// server answers from the re-checked text. Rounds alternate a request with no change (the JSON-RPC
// floor), a keystroke in a 100-line program and one in a 1,000-line program; both programs `use`
// another program (its interface is cached). Also: the time from the last keystroke to diagnostics,
// and the re-check's CPU time in process (which other load on the machine does not inflate).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { median, printTable, timed } from "./support/rounds.mjs";
import { syntheticProgram } from "./synthetic.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const folder = mkdtempSync(join(tmpdir(), "prosec-bench-lsp-"));
writeFileSync(
  join(folder, "lib.prose"),
  'input subject: "The subject"\noutput report = session "Report on {subject}"\n',
);
const programs = Object.fromEntries(
  [100, 1000].map((lines) => {
    const text = `use "./lib" as lib\nlet libResult = lib(subject: "tides")\n${syntheticProgram(lines - 2)}`;
    const path = join(folder, `p${lines}.prose`);
    writeFileSync(path, text);
    return [lines, { uri: pathToFileURL(path).href, text, version: 1, lines: text.split("\n").length - 1 }];
  }),
);

const server = spawn(process.execPath, [join(root, "bin/prosec"), "lsp", "--stdio"], {
  cwd: folder,
  stdio: ["pipe", "pipe", "inherit"],
});
const connection = createProtocolConnection(
  new StreamMessageReader(server.stdout),
  new StreamMessageWriter(server.stdin),
);
const published = new Map();
connection.onNotification("textDocument/publishDiagnostics", (params) => published.get(params.uri)?.(params));
connection.listen();
await connection.sendRequest("initialize", {
  processId: process.pid,
  rootUri: pathToFileURL(folder).href,
  capabilities: {},
});
await connection.sendNotification("initialized", {});
for (const program of Object.values(programs)) {
  const diagnostics = nextDiagnostics(program.uri);
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri: program.uri, languageId: "prose", version: 1, text: program.text },
  });
  const { diagnostics: found } = await diagnostics;
  if (found.some((diagnostic) => diagnostic.severity === 1))
    throw new Error(`p${program.lines} has errors: ${found[0].message}`);
}

/** A keystroke: one character of a prompt changes (alternately), the whole text is sent. */
function keystroke(program) {
  program.version++;
  const text = program.version % 2 === 0 ? program.text.replace("Research topic 0", "Research topic 0x") : program.text;
  return connection.sendNotification("textDocument/didChange", {
    textDocument: { uri: program.uri, version: program.version },
    contentChanges: [{ text }],
  });
}

const hoverAt = (program) =>
  connection.sendRequest("textDocument/hover", {
    textDocument: { uri: program.uri },
    position: { line: 1, character: 5 },
  });

/** The diagnostics published for `uri` (for `version`, when given: earlier keystrokes' may still arrive). */
function nextDiagnostics(uri, version) {
  return new Promise((resolve) =>
    published.set(uri, (params) => {
      if (version !== undefined && params.version !== version) return;
      published.delete(uri);
      resolve(params);
    }),
  );
}

const measures = { floor: [], small: [], large: [] };
const ratios = [];
for (let round = 0; round < 60; round++) {
  const floor = await timed(() => hoverAt(programs[1000]));
  const small = await timed(async () => {
    await keystroke(programs[100]);
    await hoverAt(programs[100]);
  });
  const large = await timed(async () => {
    await keystroke(programs[1000]);
    await hoverAt(programs[1000]);
  });
  // The first rounds warm up the JIT: not counted.
  if (round < 10) continue;
  measures.floor.push(floor);
  measures.small.push(small);
  measures.large.push(large);
  ratios.push(large / small);
}

const toDiagnostics = [];
for (let round = 0; round < 10; round++) {
  const diagnostics = nextDiagnostics(programs[1000].uri, programs[1000].version + 1);
  const start = performance.now();
  await keystroke(programs[1000]);
  await diagnostics;
  toDiagnostics.push(performance.now() - start);
}

// The same re-check in this process, as CPU time: what a keystroke costs whatever else the machine runs.
const { Workspace } = await import(join(root, "dist/src/lsp/workspace.js"));
const { TextDocument } = await import("vscode-languageserver-textdocument");
const open = new Map();
const workspace = new Workspace({ get: (uri) => open.get(uri), all: () => [...open.values()] }, { strict: false });
const cpu = [];
for (let round = 0; round < 40; round++) {
  const program = programs[1000];
  const text = round % 2 === 0 ? program.text.replace("Research topic 0", "Research topic 0x") : program.text;
  open.set(program.uri, TextDocument.create(program.uri, "prose", 100 + round, text));
  const start = process.cpuUsage();
  workspace.documentAt(program.uri);
  const used = process.cpuUsage(start);
  if (round >= 10) cpu.push((used.user + used.system) / 1000);
}

await connection.sendRequest("shutdown");
await connection.sendNotification("exit");
await new Promise((resolve) => server.on("exit", resolve));
rmSync(folder, { recursive: true, force: true });

const stats = (values) => [Math.min(...values), median(values), Math.max(...values)].map((value) => value.toFixed(1));
printTable([
  ["measure (ms)", "min", "median", "max"],
  [`hover, no change (JSON-RPC floor)`, ...stats(measures.floor)],
  [`keystroke + hover, ${programs[100].lines}-line program`, ...stats(measures.small)],
  [`keystroke + hover, ${programs[1000].lines}-line program`, ...stats(measures.large)],
  ["per-round ratio 1,000 / 100 lines", ...stats(ratios).map((value) => `${value}x`)],
  ["keystroke to diagnostics, 1,000 lines (100 ms pause included)", ...stats(toDiagnostics)],
  ["re-check of 1,000 lines in process, CPU time", ...stats(cpu)],
]);
const roundTrip = median(measures.large);
console.log(
  `\ntarget: a keystroke in a 1,000-line program re-checked in under 50 ms (server round trip median ${roundTrip.toFixed(1)} ms, CPU ${median(cpu).toFixed(1)} ms: ${roundTrip < 50 ? "met" : "NOT met"})`,
);
