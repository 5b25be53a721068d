// `prosec run` against a plain SDK script, whole processes, side by side in each round (issue 45):
// hello-world with the module cache warm and cold, a Models API that answers after 300 ms, 64
// parallel sessions, and a 26-request workflow. The fake Messages API runs in a process of its own
// (bench/support/serve-startup.mjs); `prosec run` is the durable run a user runs (journal included).
// Each process is timed by the wall clock and by its CPU time (user + system, from /usr/bin/time):
// on a loaded machine the CPU time is the steadier of the two.
//
// The fan-out is compared with two SDK scripts: the plain one (a short request, sent whole) and one
// that sends the very request prosec sent (its system prompt, tools and output limit, streamed), so
// the difference between the two rows is what the request costs and the rest is prosec's own. Two more
// rows give the floor: that script also writing, per answer, the least a durable run writes (a journal
// line and a binding file), with the request streamed and sent whole.
// The projects live in STARTUP_BENCH_DIR (default bench/results/, where a user's project would be: on
// this machine creating a file under /tmp costs about 300 µs of system time, elsewhere 1–25 µs).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, printTable, serverProcess, spread } from "./support/rounds.mjs";
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
const projects = process.env.STARTUP_BENCH_DIR ?? join(root, "bench/results");
mkdirSync(projects, { recursive: true });
const project = mkdtempSync(join(projects, "prosec-startup-bench-"));
for (const [name, text] of Object.entries(programs)) writeFileSync(join(project, name), text);
// The cold runs have a project of their own: dropping its module cache leaves the other programs' warm
// (before, every round's fan-out and workflow were compiled afresh after the cold hello-world).
const coldProject = mkdtempSync(join(projects, "prosec-startup-bench-cold-"));
writeFileSync(join(coldProject, "hello.prose"), programs["hello.prose"]);

/** One process: { wall, cpu } in ms. */
function timed(command, args, baseURL, cwd = project) {
  const start = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, command, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: baseURL, NO_COLOR: "1" },
  });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  const [user, system] = result.stderr.trimEnd().split("\n").at(-1).split(" ").map(Number);
  return { wall, cpu: (user + system) * 1000 };
}
const prosec = (program, server = fast) => timed(bin, ["run", program], server.url);
const prosecCold = () => timed(bin, ["run", "hello.prose"], fast.url, coldProject);
const sdk = (...args) => timed(sdkScript, args, fast.url);
function dropModuleCache() {
  rmSync(join(coldProject, ".prose/cache/modules"), { recursive: true, force: true });
  rmSync(join(coldProject, ".prose/cache/programs"), { recursive: true, force: true });
}
const dropLimits = () => rmSync(join(project, ".prose/cache/model-limits.json"), { force: true });
const lookups = async (server) => Number(await server.ask("lookups"));

try {
  // Warm-up: every program compiled once (the module cache), both servers' limits kept, the OS's file cache warm.
  for (const program of Object.keys(programs)) prosec(program);
  prosecCold();
  prosec("hello.prose", slowModels);
  sdk("hello");
  // The request prosec's fan-out sends, for the SDK script that sends the same.
  prosec("fanout.prose");
  const sameRequest = join(project, "request.json");
  writeFileSync(sameRequest, await fast.ask("last"));

  const rows = {};
  const add = (name, value) => (rows[name] ??= []).push(value);
  for (let round = 0; round < rounds; round++) {
    // Both orders, alternating by round: a load spike falls on both sides of a pair alike.
    const pair = (a, b) => (round % 2 === 0 ? [a(), b()] : [b(), a()].reverse());
    const [warm, plain] = pair(
      () => prosec("hello.prose"),
      () => sdk("hello"),
    );
    add("warm", warm);
    add("sdk", plain);
    add("warm/sdk", { wall: warm.wall / plain.wall, cpu: warm.cpu / plain.cpu });
    const [cold, plain2] = pair(
      () => (dropModuleCache(), prosecCold()),
      () => sdk("hello"),
    );
    add("cold", cold);
    add("cold/sdk", { wall: cold.wall / plain2.wall, cpu: cold.cpu / plain2.cpu });
    // A Models API that answers after 300 ms: the limit kept from an earlier run of the project.
    const before = await lookups(slowModels);
    const [slow, quick] = pair(
      () => prosec("hello.prose", slowModels),
      () => prosec("hello.prose"),
    );
    add("kept lookups", (await lookups(slowModels)) - before);
    add("slow-quick", { wall: slow.wall - quick.wall, cpu: slow.cpu - quick.cpu });
    // ... and a project's first run against each server (nothing kept yet; each keeps its own for the next round).
    dropLimits();
    const [slowFirst, quickFirst] = pair(
      () => prosec("hello.prose", slowModels),
      () => prosec("hello.prose"),
    );
    add("first slow-quick", { wall: slowFirst.wall - quickFirst.wall, cpu: slowFirst.cpu - quickFirst.cpu });
    // 64 parallel sessions over one, each side.
    const [fan, one] = pair(
      () => prosec("fanout.prose"),
      () => prosec("hello.prose"),
    );
    const [sdkFan, sdkOne] = pair(
      () => sdk("fanout", "64"),
      () => sdk("fanout", "1"),
    );
    const [sameFan, sameOne] = pair(
      () => sdk("same", "64", sameRequest),
      () => sdk("same", "1", sameRequest),
    );
    // The floor: the same request and the least a durable run writes per session (sdk-script.mjs).
    const [floorFan, floorOne] = pair(
      () => sdk("durable", "64", sameRequest),
      () => sdk("durable", "1", sameRequest),
    );
    const [wholeFan, wholeOne] = pair(
      () => sdk("durable-whole", "64", sameRequest),
      () => sdk("durable-whole", "1", sameRequest),
    );
    const added = { wall: fan.wall - one.wall, cpu: fan.cpu - one.cpu };
    const sdkAdded = { wall: sdkFan.wall - sdkOne.wall, cpu: sdkFan.cpu - sdkOne.cpu };
    const sameAdded = { wall: sameFan.wall - sameOne.wall, cpu: sameFan.cpu - sameOne.cpu };
    add("fan added", added);
    add("sdk fan added", sdkAdded);
    add("fan over sdk", { wall: added.wall - sdkAdded.wall, cpu: added.cpu - sdkAdded.cpu });
    add("same fan added", sameAdded);
    add("fan over same", { wall: added.wall - sameAdded.wall, cpu: added.cpu - sameAdded.cpu });
    const overPlain = (many, single) => ({
      wall: many.wall - single.wall - sdkAdded.wall,
      cpu: many.cpu - single.cpu - sdkAdded.cpu,
    });
    add("floor over sdk", overPlain(floorFan, floorOne));
    add("whole floor over sdk", overPlain(wholeFan, wholeOne));
    // The 26-request workflow.
    const [flow, sdkFlow] = pair(
      () => prosec("workflow.prose"),
      () => sdk("workflow"),
    );
    add("flow/sdk", { wall: flow.wall / sdkFlow.wall, cpu: flow.cpu / sdkFlow.cpu });
  }
  const requests = Number(await fast.ask("count"));
  const ms = (values) =>
    `${Math.round(Math.min(...values))} / ${Math.round(median(values))} / ${Math.round(Math.max(...values))}`;
  const both = (name, format) => [format(rows[name].map((x) => x.wall)), format(rows[name].map((x) => x.cpu))];
  const ratio = (values) => spread(values, 2);
  console.log(
    `${rounds} rounds, the two sides of each pair alternating first; ${requests} requests served; load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
  );
  printTable([
    ["per round: min / median / max", "wall clock", "CPU time (user + system)", "target"],
    ["prosec run hello-world, module cache warm (ms)", ...both("warm", ms), ""],
    ["plain SDK script (ms)", ...both("sdk", ms), ""],
    ["hello-world, warm ÷ SDK script", ...both("warm/sdk", ratio), "≤ 1.2"],
    ["prosec run hello-world, module cache cold (ms)", ...both("cold", ms), ""],
    ["hello-world, cold ÷ SDK script", ...both("cold/sdk", ratio), "≤ 1.6"],
    ["Models API at 300 ms, limit kept: ms added", ...both("slow-quick", ms), "≤ 20"],
    ["  its Models API look-ups per run", `${Math.max(...rows["kept lookups"])} at most`, "", "0"],
    ["Models API at 300 ms, the project's first run: ms added", ...both("first slow-quick", ms), ""],
    ["64 parallel over one session, prosec run: ms added", ...both("fan added", ms), ""],
    ["64 parallel over one session, SDK script: ms added", ...both("sdk fan added", ms), ""],
    ["  prosec's added − the SDK's added (ms)", ...both("fan over sdk", ms), "≤ 20"],
    ["64 parallel over one, SDK script sending prosec's request: ms added", ...both("same fan added", ms), ""],
    ["  prosec's added − that script's added (ms)", ...both("fan over same", ms), ""],
    [
      "64 parallel, the floor (that request streamed, a journal line and a binding file): − the SDK's added",
      ...both("floor over sdk", ms),
      "",
    ],
    ["  the same floor with the request sent whole: − the SDK's added", ...both("whole floor over sdk", ms), ""],
    ["26-request workflow ÷ SDK script", ...both("flow/sdk", ratio), "≤ 1.2"],
  ]);
} finally {
  fast.close();
  slowModels.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(coldProject, { recursive: true, force: true });
}
