// Runtime overhead, parallel fan-out and memory, against the scripted fake Messages API server.
//   (a) 100 sequential sessions through the runtime vs the same 100 requests made directly with the
//       SDK, zero-latency server: target ratio at most 1.05
//   (b) a 64-branch parallel with 200 ms server latency: target at most 1.1 x 200 ms
//   (c) 10,000 sessions at concurrency 64 (server in another process): target peak RSS under 300 MB
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importFakeServer, transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const API_KEY = "sk-ant-bench-0000000000";
const program = {
  name: "bench",
  source: "bench.prose",
  sourceHash: "0".repeat(64),
  compilerVersion: "0.0.0",
  inputs: [],
  outputs: [],
};

const mode = process.argv[2];
if (mode === undefined) transpileFakeServer();
const fake = await importFakeServer();
if (mode === "--serve") await serve(Number(process.argv[3]));
else if (mode === "--memory") await memory(process.argv[3]);
else await report();

async function runtime() {
  return import(pathToFileURL(join(root, "dist/runtime/index.js")).href);
}

async function report() {
  const a = await sequential();
  const b = await fanOut();
  const c = await memoryInChild();
  const rows = [
    ["benchmark", "measured", "target", "ok"],
    ["(a) 100 sequential sessions: runtime / direct SDK", `${a.ratio.toFixed(3)} (${a.runtimeMs.toFixed(1)} ms vs ${a.directMs.toFixed(1)} ms; CPU time ${a.cpuRatio.toFixed(3)})`, "<= 1.05", a.ratio <= 1.05 ? "yes" : "NO"],
    ["(b) 64-branch parallel, 200 ms latency", `${b.ms.toFixed(0)} ms (${(b.ms / 200).toFixed(3)} x; direct SDK ${b.directMs.toFixed(0)} ms)`, "<= 220 ms", b.ms <= 220 ? "yes" : "NO"],
    ["(c) 10,000 sessions, concurrency 64: peak RSS", `${c.peakRssMb.toFixed(0)} MB in ${(c.ms / 1000).toFixed(1)} s`, "< 300 MB", c.peakRssMb < 300 ? "yes" : "NO"],
  ];
  printTable(rows);
  if (rows.slice(1).some((row) => row[3] !== "yes")) process.exitCode = 1;
}

/**
 * (a): warmed up (both sides alike), then 41 rounds that time both sides back to back (alternating
 * which goes first). The machine is shared, so the figure is the median of the per-round ratios: a
 * load spike hits both halves of a round, not one side of the comparison. The median ratio of the
 * process's CPU time is shown too: on a loaded machine it is the steadier figure.
 */
async function sequential() {
  const { startRun } = await runtime();
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const session = (rt) => rt.session({ at: { line: 1, column: 1 }, prompt: "Summarize the findings" });
  // The direct calls send exactly the body the runtime sends (system prompt, tools and all), captured
  // once; the timed server keeps no bodies, so neither side pays for the server's memory.
  const capture = await fake.startFakeAnthropic({ script: [fake.reply.text("ok")] });
  await startRun(program, {}, { apiKey: API_KEY, baseURL: capture.url, cwd: root }, session);
  const body = capture.requests[0].body;
  await capture.close();
  const server = await fake.startFakeAnthropic({ respond: () => fake.reply.text("ok"), keepBodies: false });
  const options = { apiKey: API_KEY, baseURL: server.url, cwd: root };
  const viaRuntime = () => startRun(program, {}, options, async (rt) => {
    for (let i = 0; i < 100; i++) await session(rt);
  });
  const client = new Anthropic({ apiKey: API_KEY, baseURL: server.url });
  const direct = async () => {
    for (let i = 0; i < 100; i++) await client.messages.create(body);
  };
  for (let warmUp = 0; warmUp < 3; warmUp++) {
    await direct();
    await viaRuntime();
  }
  const runtimeTimes = [];
  const directTimes = [];
  const ratios = [];
  const cpuRatios = [];
  for (let round = 0; round < 41; round++) {
    const first = round % 2 === 0;
    const a = first ? await timedWithCpu(direct) : undefined;
    const r = await timedWithCpu(viaRuntime);
    const d = a ?? (await timedWithCpu(direct));
    directTimes.push(d.ms);
    runtimeTimes.push(r.ms);
    ratios.push(r.ms / d.ms);
    cpuRatios.push(r.cpuMs / d.cpuMs);
  }
  await server.close();
  return { runtimeMs: median(runtimeTimes), directMs: median(directTimes), ratio: median(ratios), cpuRatio: median(cpuRatios) };
}

/**
 * (b): the server in its own process; the median of 9 runs. The same 64 requests made directly with
 * the SDK (same bodies, same warm connections) are timed too: on a small machine that is the floor.
 */
async function fanOut() {
  const { startRun } = await runtime();
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const server = await serverProcess(200);
  const options = { apiKey: API_KEY, baseURL: server.url, cwd: root, concurrency: 64 };
  const branches = (rt) => rt.parallel({ line: 1, column: 1 }, {}, Array.from({ length: 64 }, (_, i) => () => rt.session({ at: { line: 2 + i, column: 3 }, prompt: `Branch ${i}` })));
  const once = () => startRun(program, {}, options, branches);
  const client = new Anthropic({ apiKey: API_KEY, baseURL: server.url });
  // The direct requests carry the bodies the runtime's branches send (system prompt, tools, the
  // branch's own task), captured once, so both sides put the same bytes on the wire.
  const capture = await fake.startFakeAnthropic({ respond: () => fake.reply.text("done") });
  await startRun(program, {}, { ...options, baseURL: capture.url }, branches);
  const bodies = capture.requests.map((request) => request.body);
  await capture.close();
  const direct = () => Promise.all(bodies.map((body) => client.messages.create(body)));
  // Both sides warm up twice against the timed server, so both find its 64 connections open (the
  // SDK's fetch uses undici's global pool, shared by both sides); then 9 interleaved rounds, each
  // alternating which side goes first.
  for (let warmUp = 0; warmUp < 2; warmUp++) {
    await once();
    await direct();
  }
  const times = [];
  const directTimes = [];
  for (let i = 0; i < 9; i++) {
    if (i % 2 === 1) directTimes.push(await timed(direct));
    times.push(await timed(once));
    if (i % 2 === 0) directTimes.push(await timed(direct));
  }
  server.close();
  return { ms: median(times), directMs: median(directTimes) };
}

/** (c) runs in a fresh process so its peak RSS is the runtime's alone; the server runs in another. */
async function memoryInChild() {
  const server = await serverProcess(0);
  try {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--memory", server.url], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    await new Promise((resolve) => child.on("close", resolve));
    return JSON.parse(output);
  } finally {
    server.close();
  }
}

/** A fake server with `latencyMs` in a child process: { url, close }. */
async function serverProcess(latencyMs) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--serve", String(latencyMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve) => child.stdout.once("data", (chunk) => resolve(String(chunk).trim())));
  return { url, close: () => child.kill() };
}

async function serve(latencyMs) {
  const server = await fake.startFakeAnthropic({ respond: () => fake.reply.text("done"), latencyMs, keepBodies: false });
  process.stdout.write(`${server.url}\n`);
}

async function memory(url) {
  const { startRun } = await runtime();
  const items = Array.from({ length: 10_000 }, (_, i) => `item ${i}`);
  const started = performance.now();
  await startRun(program, {}, { apiKey: API_KEY, baseURL: url, cwd: root, concurrency: 64 }, (rt) =>
    rt.map({ line: 1, column: 1 }, items, (item) => rt.session({ at: { line: 2, column: 3 }, prompt: "Process the item", context: { item } })),
  );
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024, ms }));
}

/** Wall time and the process's CPU time (client and in-process server together) of `work`. */
async function timedWithCpu(work) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function timed(work) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function median(values) {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
}

function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  rows.forEach((row, index) => {
    console.log(`| ${row.map((cell, column) => String(cell).padEnd(widths[column])).join(" | ")} |`);
    if (index === 0) console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`);
  });
}
