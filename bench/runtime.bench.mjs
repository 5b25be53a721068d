// Runtime overhead, parallel fan-out and memory, against the scripted fake Messages API server, which
// runs in a process of its own. Ratios are per round (both sides back to back), min / median / max.
//   (a) 100 sequential sessions through the runtime vs the same 100 requests made directly with the
//       SDK, zero-latency server: target median ratio at most 1.05
//   (b) a 64-branch parallel with 200 ms server latency and default settings vs the raw SDK's 64
//       concurrent requests: target median ratio at most 1.1
//   (c) 10,000 sessions at concurrency 64 through `prosec run` (a child process): peak RSS under 300 MB;
//       the same through a prebuilt module, for comparison
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importFakeServer, transpileFakeServer } from "./support/fake-server.mjs";
import { fakeServerProcess, median, pairedRounds, printTable, spread, timed } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const API_KEY = "sk-ant-bench-0000000000";
const ITEMS = 10_000;
const program = {
  name: "bench",
  source: "bench.prose",
  sourceHash: "0".repeat(64),
  compilerVersion: "0.0.0",
  inputs: [],
  outputs: [],
};

if (process.argv[2] === "--memory") await memory(process.argv[3]);
else await report();

async function runtime() {
  return import(pathToFileURL(join(root, "dist/runtime/index.js")).href);
}

async function report() {
  transpileFakeServer();
  const a = await sequential();
  const b = await fanOut();
  // (c) in rounds of its own: each a fresh `prosec run` process.
  const c = [];
  for (let round = 0; round < 3; round++) c.push(await memoryThroughCli());
  const peaks = c.map((round) => round.peakRssMb);
  const m = await memoryInChild();
  const rows = [
    ["benchmark", "measured", "target", "ok"],
    [
      "(a) 100 sequential sessions: runtime / direct SDK (per round min / median / max)",
      `${spread(a.ratios)} (${median(a.runtime).toFixed(1)} ms vs ${median(a.direct).toFixed(1)} ms)`,
      "median <= 1.05",
      median(a.ratios) <= 1.05 ? "yes" : "NO",
    ],
    [
      "(b) 64 branches, 200 ms latency, default settings: runtime / raw SDK",
      `${spread(b.ratios)} (${median(b.runtime).toFixed(0)} ms vs ${median(b.direct).toFixed(0)} ms)`,
      "median <= 1.1",
      median(b.ratios) <= 1.1 ? "yes" : "NO",
    ],
    [
      "(c) 10,000 sessions, concurrency 64, `prosec run`: peak RSS per round (min / median / max of 3)",
      `${spread(peaks, 0)} MB (${(median(c.map((round) => round.ms)) / 1000).toFixed(1)} s)`,
      "< 300 MB",
      Math.max(...peaks) < 300 ? "yes" : "NO",
    ],
    [
      "    the same through a prebuilt module (no compiler)",
      `${m.peakRssMb.toFixed(0)} MB in ${(m.ms / 1000).toFixed(1)} s`,
      "",
      "",
    ],
  ];
  printTable(rows);
  if (rows.slice(1).some((row) => row[3] === "NO")) process.exitCode = 1;
}

/** The bodies the runtime sends for `body(rt)`, captured once from an in-process server (not timed). */
async function capturedBodies(body) {
  const { startRun } = await runtime();
  const fake = await importFakeServer();
  const capture = await fake.startFakeAnthropic({ respond: () => fake.reply.text("done") });
  await startRun(program, {}, { apiKey: API_KEY, baseURL: capture.url, cwd: root }, body);
  await capture.close();
  return capture.requests.map((request) => request.body);
}

/** (a): warmed up (both sides alike), then 41 paired rounds; the direct calls send exactly the runtime's bodies. */
async function sequential() {
  const { startRun } = await runtime();
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const session = (rt) => rt.session({ at: { line: 1, column: 1 }, prompt: "Summarize the findings" });
  const [body] = await capturedBodies(session);
  const server = await fakeServerProcess(0, "ok");
  const options = { apiKey: API_KEY, baseURL: server.url, cwd: root };
  const viaRuntime = () =>
    timed(() =>
      startRun(program, {}, options, async (rt) => {
        for (let i = 0; i < 100; i++) await session(rt);
      }),
    );
  const client = new Anthropic({ apiKey: API_KEY, baseURL: server.url });
  const direct = () =>
    timed(async () => {
      for (let i = 0; i < 100; i++) await client.messages.create(body);
    });
  for (let warmUp = 0; warmUp < 3; warmUp++) {
    await direct();
    await viaRuntime();
  }
  const rounds = await pairedRounds(41, viaRuntime, direct);
  server.close();
  return { runtime: rounds.a, direct: rounds.b, ratios: rounds.ratios };
}

/**
 * (b): no `concurrency` given, so the run follows the API's pace (64 wide at first). The direct side
 * makes the same 64 requests (the runtime's bodies) with one SDK client, all at once. Both warm up
 * against the timed server first, so both find its connections open (undici's global pool is shared).
 */
async function fanOut() {
  const { startRun } = await runtime();
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const branches = (rt) =>
    rt.parallel(
      { line: 1, column: 1 },
      {},
      Array.from({ length: 64 }, (_, i) => () => rt.session({ at: { line: 2 + i, column: 3 }, prompt: `Branch ${i}` })),
    );
  const bodies = await capturedBodies(branches);
  const server = await fakeServerProcess(200, "done");
  const options = { apiKey: API_KEY, baseURL: server.url, cwd: root };
  const viaRuntime = () => timed(() => startRun(program, {}, options, branches));
  const client = new Anthropic({ apiKey: API_KEY, baseURL: server.url });
  const direct = () => timed(() => Promise.all(bodies.map((body) => client.messages.create(body))));
  for (let warmUp = 0; warmUp < 2; warmUp++) {
    await viaRuntime();
    await direct();
  }
  const rounds = await pairedRounds(9, viaRuntime, direct);
  server.close();
  return { runtime: rounds.a, direct: rounds.b, ratios: rounds.ratios };
}

/** (c): `prosec run` on a program that maps 10,000 items, in a child process whose peak RSS is recorded at exit. */
async function memoryThroughCli() {
  const server = await fakeServerProcess(0, "done");
  const cwd = mkdtempSync(join(tmpdir(), "prosec-memory-bench-"));
  const items = Array.from({ length: ITEMS }, (_, i) => `"item ${i}"`).join(", ");
  writeFileSync(
    join(cwd, "many.prose"),
    `let items = [${items}]\nparallel for item in items:\n  session "Process the item"\n    context: item\n`,
  );
  const rssFile = join(cwd, "peak-rss");
  const peakRss = pathToFileURL(join(root, "bench/support/peak-rss.mjs")).href;
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ["--import", peakRss, join(root, "bin/prosec"), "run", "many.prose", "--concurrency", "64"],
      {
        cwd,
        stdio: ["ignore", "ignore", "ignore"],
        env: {
          ...process.env,
          ANTHROPIC_API_KEY: API_KEY,
          ANTHROPIC_BASE_URL: server.url,
          PROSEC_PEAK_RSS_FILE: rssFile,
        },
      },
    );
    const code = await new Promise((resolve) => child.on("close", resolve));
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`prosec run exited ${code}`);
    const requests = await server.requestCount();
    if (requests !== ITEMS) throw new Error(`prosec run sent ${requests} requests, not ${ITEMS}`);
    return { peakRssMb: Number(readFileSync(rssFile, "utf8")), ms };
  } finally {
    server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** The same load through the runtime alone (a prebuilt module), in a fresh process. */
async function memoryInChild() {
  const server = await fakeServerProcess(0, "done");
  try {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--memory", server.url], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    await new Promise((resolve) => child.on("close", resolve));
    return JSON.parse(output);
  } finally {
    server.close();
  }
}

async function memory(url) {
  const { startRun } = await runtime();
  const items = Array.from({ length: ITEMS }, (_, i) => `item ${i}`);
  const started = performance.now();
  await startRun(program, {}, { apiKey: API_KEY, baseURL: url, cwd: root, concurrency: 64 }, (rt) =>
    rt.map({ line: 1, column: 1 }, items, (item) =>
      rt.session({ at: { line: 2, column: 3 }, prompt: "Process the item", context: { item } }),
    ),
  );
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024, ms }));
}
