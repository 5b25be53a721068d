// `prosec run` against a plain SDK script, whole processes, side by side in each round (issue 45):
// hello-world with the module cache warm and cold, a Models API that answers after 300 ms, 64
// parallel sessions, and a 26-request workflow. The fake Messages API runs in a process of its own
// (bench/support/serve-startup.mjs); `prosec run` is the durable run a user runs (journal included).
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { median, serverProcess, spread, printTable } from "./support/rounds.mjs";
import { transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin/prosec");
const sdkScript = join(root, "bench/support/sdk-script.mjs");
const rounds = Number(process.env.STARTUP_BENCH_ROUNDS ?? 7);

const programs = {
  "hello.prose": 'session "Say hello and briefly introduce yourself"\n',
  "fanout.prose": `let tasks = [${Array.from({ length: 64 }, (_, index) => `"Task ${index + 1}"`).join(", ")}]\n\nparallel for task in tasks:\n  session "Do {task}"\n`,
  "workflow.prose": [
    'let notes = session "Step 1"',
    ...[2, 3, 4, 5].map((step) => `notes = session "Step ${step}"\n  context: notes`),
    "",
    `let parts = [${Array.from({ length: 16 }, (_, index) => `"Part ${index + 1}"`).join(", ")}]`,
    "let drafts = parallel for part in parts:",
    '  session "Write {part}"',
    "    context: notes",
    "",
    'let draft = session "Combine the parts"',
    "  context: drafts",
    "",
    "loop until **the draft is good enough** (max: 2):",
    '  draft = session "Improve the draft"',
    "    context: draft",
    "",
  ].join("\n"),
};

transpileFakeServer();
const serveScript = join(root, "bench/support/serve-startup.mjs");
const fast = await serverProcess(serveScript, ["0"]);
const slowModels = await serverProcess(serveScript, ["300"]);
const project = mkdtempSync(join(tmpdir(), "prosec-startup-bench-"));
for (const [name, text] of Object.entries(programs)) writeFileSync(join(project, name), text);

function wall(command, args, baseURL) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [command, ...args], {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: baseURL, NO_COLOR: "1" },
  });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}
const prosec = (program, server = fast) => wall(bin, ["run", program], server.url);
const sdk = (...args) => wall(sdkScript, args, fast.url);
function dropModuleCache() {
  rmSync(join(project, ".prose/cache/modules"), { recursive: true, force: true });
  rmSync(join(project, ".prose/cache/programs"), { recursive: true, force: true });
}
const dropLimits = () => rmSync(join(project, ".prose/cache/model-limits.json"), { force: true });

try {
  // Warm-up: every program compiled once (the module cache), both servers' limits kept, the OS's file cache warm.
  for (const program of Object.keys(programs)) prosec(program);
  prosec("hello.prose", slowModels);
  sdk("hello");

  const series = { warm: [], cold: [], sdk: [], slowWarm: [], fastWarm: [], slowCold: [], fastCold: [] };
  const ratios = { warm: [], cold: [], workflow: [] };
  const added = { prosec: [], sdk: [], models: [], modelsFirst: [] };
  for (let round = 0; round < rounds; round++) {
    const flip = round % 2 === 1;
    // hello-world, warm cache, against the plain script
    const pair = (a, b) => (flip ? [b(), a()].reverse() : [a(), b()]);
    const [warm, plain] = pair(
      () => prosec("hello.prose"),
      () => sdk("hello"),
    );
    ratios.warm.push(warm / plain);
    series.warm.push(warm);
    series.sdk.push(plain);
    // hello-world, cold module cache
    const [cold, plain2] = pair(
      () => (dropModuleCache(), prosec("hello.prose")),
      () => sdk("hello"),
    );
    ratios.cold.push(cold / plain2);
    series.cold.push(cold);
    // A Models API that answers after 300 ms: the limit kept from an earlier run, and a first run (none kept)
    const [slow, quick] = pair(
      () => prosec("hello.prose", slowModels),
      () => prosec("hello.prose"),
    );
    added.models.push(slow - quick);
    const [slowFirst, quickFirst] = pair(
      () => (dropLimits(), prosec("hello.prose", slowModels)),
      () => (dropLimits(), prosec("hello.prose")),
    );
    added.modelsFirst.push(slowFirst - quickFirst);
    // 64 parallel sessions over one, each side
    const [fan, one] = pair(
      () => prosec("fanout.prose"),
      () => prosec("hello.prose"),
    );
    const [sdkFan, sdkOne] = pair(
      () => sdk("fanout", "64"),
      () => sdk("fanout", "1"),
    );
    added.prosec.push(fan - one);
    added.sdk.push(sdkFan - sdkOne);
    // the 26-request workflow
    const [flow, sdkFlow] = pair(
      () => prosec("workflow.prose"),
      () => sdk("workflow"),
    );
    ratios.workflow.push(flow / sdkFlow);
  }
  const requests = Number(await fast.ask("count"));
  const ms = (values) =>
    `${Math.round(Math.min(...values))} / ${Math.round(median(values))} / ${Math.round(Math.max(...values))}`;
  console.log(
    `${rounds} rounds, both sides alternating first; ${requests} requests served; load average ${(
      await import("node:os")
    )
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
  );
  printTable([
    ["measure (per round, min / median / max)", "prosec run", "plain SDK script", "ratio or difference", "target"],
    ["hello-world, module cache warm (ms; ratio)", ms(series.warm), ms(series.sdk), spread(ratios.warm, 2), "≤ 1.2"],
    ["hello-world, module cache cold (ms; ratio)", ms(series.cold), "", spread(ratios.cold, 2), "≤ 1.6"],
    ["Models API answering after 300 ms, limit kept (ms added)", "", "", ms(added.models), "≤ 20"],
    ["Models API answering after 300 ms, first run of the project (ms added)", "", "", ms(added.modelsFirst), ""],
    [
      "64 parallel sessions over one (ms added)",
      ms(added.prosec),
      ms(added.sdk),
      ms(added.prosec.map((x, i) => x - added.sdk[i])),
      "≤ SDK + 20",
    ],
    ["26-request workflow (ratio)", "", "", spread(ratios.workflow, 2), "≤ 1.2"],
  ]);
} finally {
  fast.close();
  slowModels.close();
  rmSync(project, { recursive: true, force: true });
}
