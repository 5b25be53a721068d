// `prosec eval` at scale: 1,000 cases of a one-session program with one judged assert (two requests a
// case) against a fake Messages API with 200 ms latency, in its own process, at --concurrency 32,
// through the CLI as users run it. The ideal is cases ÷ concurrency × requests a case × latency; the
// figure is the eval's wall time over it (target within 1.2x), per round, the CLI's peak RSS, and the
// CPU time it used per case (what a loaded machine turns into wall time).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serverProcess, median, printTable, spread } from "./support/rounds.mjs";
import { transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const CASES = Number(process.env.PROSEC_BENCH_EVAL_CASES ?? 1000);
const CONCURRENCY = 32;
const LATENCY_MS = 200;
const REQUESTS_PER_CASE = 2;
const ROUNDS = Number(process.env.PROSEC_BENCH_ROUNDS ?? 3);
const PROGRAM = `input article: "The article"

let summary = session "Summarise in one sentence: {article}"

assert **the summary is one sentence**:
  "one sentence"

output result = summary
`;

transpileFakeServer();
const server = await serverProcess(fileURLToPath(new URL("./support/serve-judged.mjs", import.meta.url)), [
  String(LATENCY_MS),
]);
const requestCount = async () => Number(await server.ask("count"));
const ideal = (CASES / CONCURRENCY) * REQUESTS_PER_CASE * LATENCY_MS;

async function round() {
  const scratch = mkdtempSync(join(tmpdir(), "prosec-eval-bench-"));
  try {
    writeFileSync(join(scratch, "summary.eval.prose"), PROGRAM);
    writeFileSync(
      join(scratch, "cases.jsonl"),
      Array.from({ length: CASES }, (_, i) =>
        JSON.stringify({ name: `c${i}`, inputs: { article: `article ${i}` } }),
      ).join("\n"),
    );
    const rssFile = join(scratch, "rss");
    const cpuFile = join(scratch, "cpu");
    const before = await requestCount();
    const started = performance.now();
    const { code, stdout } = await new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          fileURLToPath(new URL("./support/vmhwm.mjs", import.meta.url)),
          "--import",
          fileURLToPath(new URL("./support/cpu-time.mjs", import.meta.url)),
          join(root, "bin/prosec"),
          "eval",
          "summary.eval.prose",
          "--cases",
          "cases.jsonl",
          "--concurrency",
          String(CONCURRENCY),
          "--json",
        ],
        {
          cwd: scratch,
          env: {
            ...process.env,
            ANTHROPIC_API_KEY: "sk-ant-bench-0000000000",
            ANTHROPIC_BASE_URL: server.url,
            PROSEC_VMHWM_FILE: rssFile,
            PROSEC_CPU_FILE: cpuFile,
          },
          stdio: ["ignore", "pipe", "ignore"],
        },
      );
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("error", reject);
      child.on("close", (status) => resolve({ code: status, stdout: out }));
    });
    const processMs = performance.now() - started;
    if (code !== 0) throw new Error(`prosec eval exited ${code}`);
    const report = JSON.parse(stdout);
    const sent = (await requestCount()) - before;
    if (report.scored !== CASES || sent !== CASES * REQUESTS_PER_CASE)
      throw new Error(`${report.scored} cases scored, ${sent} requests`);
    return {
      evalMs: report.wallMs,
      processMs,
      rss: Number(readFileSync(rssFile, "utf8")),
      cpuMs: Number(readFileSync(cpuFile, "utf8")),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < ROUNDS; i++) results.push(await round());
server.close();

printTable([
  ["", "min / median / max"],
  [
    "eval wall time (report) / ideal",
    spread(
      results.map((r) => r.evalMs / ideal),
      2,
    ),
  ],
  [
    "process wall time (start to exit) / ideal",
    spread(
      results.map((r) => r.processMs / ideal),
      2,
    ),
  ],
  [
    "eval wall time, s",
    spread(
      results.map((r) => r.evalMs / 1000),
      1,
    ),
  ],
  [
    "peak RSS, MB",
    spread(
      results.map((r) => r.rss),
      0,
    ),
  ],
  [
    "CPU time of the prosec process, ms per case",
    spread(
      results.map((r) => r.cpuMs / CASES),
      1,
    ),
  ],
]);
console.log(
  `\n${CASES} cases × ${REQUESTS_PER_CASE} requests, ${LATENCY_MS} ms each, --concurrency ${CONCURRENCY}: ideal ${(ideal / 1000).toFixed(2)} s; median eval ${(median(results.map((r) => r.evalMs)) / 1000).toFixed(2)} s`,
);
