// The scale-out benchmark's baseline: the worker's workflows, registered as `prosec worker` registers
// them, but started directly in this process (DBOS.startWorkflow) instead of through the queue.
// argv: program file, database URL, runs. Prints the wall time in ms of all runs, start to results.
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";

process.noDeprecation = true;
const root = fileURLToPath(new URL("../..", import.meta.url));
const load = async (path) => import(pathToFileURL(join(root, "dist", path)).href);
const { loadProgram } = await load("src/run/load-program.js");
const { registerProgram } = await load("runtime/dbos/workflows.js");
const { APPLICATION, migrate } = await load("src/worker/database.js");

const [file, url, runs] = process.argv.slice(2);
const { module, codeHash } = await loadProgram(file, { cwd: process.cwd() });
await migrate(url);
const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: APPLICATION });
const ownQueue = "prosec.worker.direct";
const runWorkflow = registerProgram(module, {
  client,
  ownQueue,
  pollMs: 500,
  runOptions: () => ({ cwd: process.cwd() }),
});
DBOS.setConfig({
  name: APPLICATION,
  systemDatabaseUrl: url,
  applicationVersion: codeHash,
  executorID: "direct",
  listenQueues: [ownQueue],
  runMigrations: false,
  logLevel: "warn",
});
await DBOS.launch();
await DBOS.registerQueue(ownQueue, { minPollingIntervalMs: 50, onConflict: "always_update" });
// One run first, not timed, as the benchmark does with the worker: the first run pays for warming up.
await (await DBOS.startWorkflow(runWorkflow, { workflowID: "warm-up" })({ topic: "warm-up" })).getResult();
const start = performance.now();
const handles = [];
for (let i = 0; i < Number(runs); i++)
  handles.push(await DBOS.startWorkflow(runWorkflow, { workflowID: `direct-${i}` })({ topic: `t${i}` }));
const outputs = await Promise.all(handles.map((handle) => handle.getResult()));
const ms = performance.now() - start;
if (!outputs.every((output) => typeof output?.report === "string")) throw new Error("direct: a run without its report");
process.stdout.write(`${ms}\n`);
await DBOS.shutdown();
await client.destroy();
