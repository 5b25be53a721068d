// Streaming through `prosec run` on a terminal: a pty (`script`) runs the CLI against the fake Messages
// API in a process of its own, which streams a 1,600-character answer in 8-character chunks 4 ms apart
// (≈ 0.8 s of "generation") and notes when it wrote each stream's first chunk of text. Per round, back to
// back, alternating which goes first:
//   (a) latency: from the server writing the answer's first characters to them appearing on the
//       terminal (the pty's output, read by this process); with --no-stream, to the answer appearing at
//       all (the outputs printed at the end)
//   (b) overhead: the whole `prosec run`'s wall time, streaming / --no-stream (the server answers a
//       whole request after as long as the stream takes): target median at most 1.05
//   (c) the CPU time (user + system) `prosec run` spent, streaming / --no-stream: what streaming costs
//       the machine, less at the mercy of other processes than the wall time
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { transpileFakeServer } from "./support/fake-server.mjs";
import { median, pairedRounds, printTable, serverProcess, spread } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const serveScript = fileURLToPath(new URL("./support/serve-stream.mjs", import.meta.url));
const ROUNDS = 7;
const MARK = "QZX";
const ANSWER = `${MARK} ${"The week was quiet and the numbers held steady. ".repeat(33)}`.slice(0, 1600);
const CHUNK_CHARS = 8;
const CHUNK_DELAY_MS = 4;

transpileFakeServer();
const server = await startServer();
const folder = mkdtempSync(join(tmpdir(), "prosec-bench-stream-"));
writeFileSync(join(folder, "week.prose"), 'output summary = session "Summarise the week"\n');
try {
  await report();
} finally {
  server.close();
  rmSync(folder, { recursive: true, force: true });
}

async function report() {
  await runInPty(true); // warm the disk cache and the compile cache
  const latency = { stream: [], whole: [] };
  const cpu = { stream: [], whole: [] };
  const wall = await pairedRounds(
    ROUNDS,
    async () => {
      const run = await runInPty(true);
      latency.stream.push(run.latencyMs);
      cpu.stream.push(run.cpuMs);
      return run.wallMs;
    },
    async () => {
      const run = await runInPty(false);
      latency.whole.push(run.latencyMs);
      cpu.whole.push(run.cpuMs);
      return run.wallMs;
    },
  );
  const ms = (values) => spread(values, 1);
  const rows = [
    ["benchmark (per round: min / median / max)", "streaming", "--no-stream", "target", "ok"],
    [
      "(a) the answer's first characters: written by the server → on the terminal (ms)",
      ms(latency.stream),
      ms(latency.whole),
      "streaming median < 50 ms",
      median(latency.stream) < 50 ? "yes" : "NO",
    ],
    ["(b) `prosec run` wall time (ms)", ms(wall.a), ms(wall.b), "", ""],
    [
      "    streaming / --no-stream, per round",
      spread(wall.ratios),
      "",
      "median <= 1.05",
      median(wall.ratios) <= 1.05 ? "yes" : "NO",
    ],
  ];
  rows.push(
    ["(c) `prosec run` CPU time, user + system (ms)", ms(cpu.stream), ms(cpu.whole), "", ""],
    [
      "    streaming / --no-stream, per round",
      spread(cpu.stream.map((value, round) => value / cpu.whole[round])),
      "",
      "",
      "",
    ],
  );
  printTable(rows);
  if (rows.slice(1).some((row) => row[4] === "NO")) process.exitCode = 1;
}

/** One `prosec run` in a pty: its wall time, and when the answer's first characters reached the terminal. */
async function runInPty(stream) {
  const command = [process.execPath, join(root, "bin/prosec"), "run", "week.prose", ...(stream ? [] : ["--no-stream"])]
    .map((part) => `'${part}'`)
    .join(" ");
  // `times` prints the CPU time of the shell's children: prosec's.
  const shell = `${command}; status=$?; times; exit $status`;
  const started = now();
  const child = spawn("script", ["-q", "-e", "-c", shell, "/dev/null"], {
    cwd: folder,
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: "sk-ant-bench-0000000000",
      ANTHROPIC_BASE_URL: server.url,
      NO_COLOR: "1",
      COLUMNS: "100",
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let shown;
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk.toString();
    if (shown === undefined && output.includes(MARK)) shown = now();
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  const wallMs = now() - started;
  if (code !== 0 || shown === undefined) throw new Error(`prosec run failed (${code}):\n${output}`);
  const request = (await server.timings()).at(-1);
  if (request.streamed !== stream) throw new Error(`the request was ${request.streamed ? "" : "not "}streamed`);
  // Sent whole, from when a stream would have written its first text (after 3 events), to the outputs.
  const written = stream ? request.firstTextAt : request.receivedAt + 3 * CHUNK_DELAY_MS;
  const [, userM, userS, systemM, systemS] = [...output.matchAll(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/g)].at(-1);
  const cpuMs = (Number(userM) * 60 + Number(userS) + Number(systemM) * 60 + Number(systemS)) * 1000;
  return { wallMs, latencyMs: shown - written, cpuMs };
}

function now() {
  return performance.timeOrigin + performance.now();
}

async function startServer() {
  const server = await serverProcess(serveScript, [ANSWER, String(CHUNK_CHARS), String(CHUNK_DELAY_MS)]);
  return { url: server.url, timings: async () => JSON.parse(await server.ask("timings")), close: server.close };
}
