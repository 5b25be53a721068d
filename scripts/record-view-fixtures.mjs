#!/usr/bin/env node
// Records the runs `prosec view`'s browser tests open (test/fixtures/view-runs/<name>/.prose/runs/):
// each fixture program run once by the built CLI against the tests' fake Messages API. Run it after a
// change to the run folder or the trace format (`npm run build` first), then commit the folders.
import { spawn } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadFakeServer } from "../bench/support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixtures = join(root, "test/fixtures/view-runs");
const { startFakeAnthropic, reply } = await loadFakeServer();

/** Text for sessions, a judgment's or choice's answer through its tool; `judge` decides yes or no. */
function answering(judge = () => true, fail = () => false) {
  return (request) => {
    const body = request.body ?? {};
    const asked = JSON.stringify(body.messages ?? []);
    if (fail(asked)) return reply.error(400, { message: "the model refused this request (scripted failure)" });
    const tool = body.tools?.[0];
    if (body.tool_choice !== undefined && tool !== undefined) {
      const schema = tool.input_schema?.properties?.answer ?? {};
      const answer =
        schema.enum?.[0] ?? (schema.type === "boolean" ? judge(asked) : schema.type === "array" ? ["a", "b"] : "value");
      return reply.toolUse([{ name: tool.name, input: { answer, reason: `Scripted: the evidence says ${answer}.` } }]);
    }
    if (asked.includes("notes.md") && !asked.includes("tool_result"))
      return reply.toolUse([{ name: "read_file", input: { path: "notes.md" } }]);
    const last = body.messages?.at(-1)?.content;
    const prompt = Array.isArray(last) ? last.map((block) => block.text ?? "").join(" ") : String(last ?? "");
    return reply.text(`Answer ${request.index + 1}: ${prompt.replace(/\s+/g, " ").slice(-80)}`);
  };
}

const respondents = {
  finished: answering((asked) => asked.includes("Answer 4")),
  failed: answering(
    () => true,
    (asked) => asked.includes("Summarise the notes"),
  ),
  parallel: answering(),
  waiting: answering(),
};

for (const [name, respond] of Object.entries(respondents)) {
  const folder = join(fixtures, name);
  rmSync(join(folder, ".prose"), { recursive: true, force: true });
  const server = await startFakeAnthropic({ respond, latencyMs: 40 });
  // Not spawnSync: the fake server answers from this process's event loop.
  const child = spawn(process.execPath, [join(root, "bin/prosec"), "run", `${name}.prose`], {
    cwd: folder,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ANTHROPIC_API_KEY: "sk-ant-fixture-key", ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.resume();
  const result = { status: await new Promise((resolve) => child.on("close", resolve)), stderr };
  await server.close();
  const runs = readdirSync(join(folder, ".prose", "runs"));
  console.log(`${name}: exit ${result.status}, run ${runs.join(", ")}`);
  if (result.status !== 0) console.log(result.stderr.trim().split("\n").slice(-3).join("\n"));
}
