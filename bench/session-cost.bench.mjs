// What a session costs prosec beyond the SDK's own request, in one warm process (issue 45): the compiled
// 64-session fan-out (`parallel for` over 64 items, a durable run folder each round, as `prosec run`
// gives it) against the SDK sending the very request prosec sent, 64 at a time, streamed as prosec
// streams it. The two alternate in each round, against the fake Messages API in a process of its own;
// CPU time of this process per round (the fake server's is its own). The first rounds pay the JIT and
// the first connections; the steady rounds are the per-session cost that stays.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { median, printTable, serverProcess } from "./support/rounds.mjs";
import { transpileFakeServer } from "./support/fake-server.mjs";

const SESSIONS = 64;
const rounds = Number(process.env.SESSION_COST_ROUNDS ?? 40);
const root = fileURLToPath(new URL("..", import.meta.url));

transpileFakeServer();
const server = await serverProcess(join(root, "bench/support/serve-startup.mjs"), ["0"]);
const projects = join(root, "bench/results");
mkdirSync(projects, { recursive: true });
const project = mkdtempSync(join(projects, "prosec-session-cost-"));
try {
  const items = Array.from({ length: SESSIONS }, (_, index) => `"Task ${index + 1}"`).join(", ");
  writeFileSync(
    join(project, "fanout.prose"),
    `let tasks = [${items}]\n\nparallel for task in tasks:\n  session "Do {task}"\n`,
  );
  const env = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" };
  // One `prosec run` compiles the module into the project's cache and shows the request prosec sends.
  const first = spawnSync(process.execPath, [join(root, "bin/prosec"), "run", "fanout.prose"], { cwd: project, env });
  if (first.status !== 0) throw new Error(`prosec run exited ${first.status}: ${first.stderr}`);
  const { stream: _stream, ...body } = JSON.parse(await server.ask("last"));
  const cache = join(project, ".prose/cache/modules");
  const compiled = await import(pathToFileURL(join(cache, readdirSync(cache)[0])).href);
  Object.assign(process.env, { ANTHROPIC_API_KEY: env.ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL: server.url });
  const client = new Anthropic();

  let runs = 0;
  const prosec = () => {
    const runId = `20260101-000000-${String(++runs).padStart(6, "0")}`;
    return compiled.run(
      {},
      { cwd: project, runId, runDir: join(project, ".prose/runs", runId), onEvent: () => {}, streamEvents: false },
    );
  };
  const sdk = () =>
    Promise.all(
      Array.from({ length: SESSIONS }, (_, index) =>
        client.messages
          .stream({ ...body, messages: [{ role: "user", content: [{ type: "text", text: `Do Task ${index + 1}` }] }] })
          .finalMessage(),
      ),
    );
  const cpu = async (work) => {
    const before = process.cpuUsage();
    await work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };

  const sides = { prosec: [], sdk: [] };
  for (let round = 0; round < rounds; round++)
    for (const side of round % 2 === 0 ? ["prosec", "sdk"] : ["sdk", "prosec"])
      sides[side].push(await cpu(side === "prosec" ? prosec : sdk));

  const steady = Math.floor(rounds / 3);
  const perSession = (values) => values.map((ms) => (ms * 1000) / SESSIONS);
  const added = sides.prosec.map((ms, index) => ms - sides.sdk[index]);
  const spreadOf = (values) => {
    const sorted = [...values].sort((x, y) => x - y);
    return `${sorted[0].toFixed(0)} / ${median(sorted).toFixed(0)} / ${sorted.at(-1).toFixed(0)}`;
  };
  console.log(
    `${rounds} rounds of ${SESSIONS} sessions, the two sides alternating first; steady: rounds ${steady + 1}–${rounds}\n`,
  );
  printTable([
    ["per round, CPU time of this process", "first round", "steady rounds: min / median / max"],
    [
      "prosec, the compiled fan-out (µs a session)",
      perSession(sides.prosec)[0].toFixed(0),
      spreadOf(perSession(sides.prosec.slice(steady))),
    ],
    [
      "the SDK, the same 64 requests (µs a session)",
      perSession(sides.sdk)[0].toFixed(0),
      spreadOf(perSession(sides.sdk.slice(steady))),
    ],
    ["prosec's own (µs a session)", perSession(added)[0].toFixed(0), spreadOf(perSession(added.slice(steady)))],
  ]);
} finally {
  server.close();
  rmSync(project, { recursive: true, force: true });
}
