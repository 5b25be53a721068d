// The cost of tracing (docs/production.md, "Tracing"): 100 sequential sessions through the runtime
// against the fake Messages API (its own process, no latency), with an application's NodeTracerProvider
// registered (batching to an exporter that drops the spans: the runtime's and the SDK's spans are made,
// ended and batched, not sent) vs none registered. Ratios per round, traced / untraced, min / median / max.
// The target is on the extra time per session (traced - untraced, per round, / 100): median at most
// 1 ms for its 3 spans (the step, its turn, the SDK's call), where a real model's turn takes seconds.
// The ratio is shown for scale: at zero latency it is all overhead. Off, the runtime makes no span.
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { context, propagation, trace } from "@opentelemetry/api";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { fakeServerProcess, median, pairedRounds, printTable, spread, timed } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const program = {
  name: "bench",
  source: "bench.prose",
  sourceHash: "0".repeat(64),
  compilerVersion: "0.0.0",
  inputs: [],
  outputs: [],
};

const { startRun } = await import(pathToFileURL(join(root, "dist/runtime/index.js")).href);
const server = await fakeServerProcess(0, "ok");
// A client per run (`fetch` given), on both sides: a cached client would keep the tracer of the
// provider registered when it was made, and the provider comes and goes here between rounds.
const options = {
  apiKey: "sk-ant-bench-0000000000",
  baseURL: server.url,
  cwd: root,
  fetch: (...args) => fetch(...args),
};
const session = (rt) => rt.session({ at: { line: 1, column: 1 }, prompt: "Summarize the findings" });
let spans = 0;
const dropping = {
  export(batch, done) {
    spans += batch.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};

const hundred = () =>
  startRun(program, {}, options, async (rt) => {
    for (let i = 0; i < 100; i++) await session(rt);
  });
const untraced = () => timed(hundred);
const traced = async () => {
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
  provider.register();
  const ms = await timed(hundred);
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  return ms;
};

for (let warmUp = 0; warmUp < 3; warmUp++) {
  await untraced();
  await traced();
}
spans = 0;
const rounds = await pairedRounds(21, traced, untraced);
server.close();
const extra = rounds.a.map((ms, round) => (ms - rounds.b[round]) / 100);
const rows = [
  ["benchmark", "measured", "target", "ok"],
  [
    "100 sequential sessions, provider registered / none (per round min / median / max)",
    `${spread(rounds.ratios)} (${median(rounds.a).toFixed(1)} ms vs ${median(rounds.b).toFixed(1)} ms; ${(spans / 21).toFixed(0)} spans a run)`,
    "",
    "",
  ],
  [
    "    extra ms per session (min / median / max)",
    spread(extra, 2),
    "median <= 1 ms",
    median(extra) <= 1 ? "yes" : "NO",
  ],
];
printTable(rows);
if (rows[2][3] === "NO") process.exitCode = 1;
