// The fake Messages API server in a process of its own, answering as the scripted corpus model
// (test/support/corpus-model.ts) answers the program whose path is argv[2] (no scenario: its loops
// run to their `max:`). Prints its URL on the first line; answers each `count` line on stdin with the
// number of requests it has received.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fakeServerModule, importFakeServer } from "./fake-server.mjs";

const { startFakeAnthropic } = await importFakeServer();
const { scriptedModel } = await import(pathToFileURL(join(fakeServerModule, "../corpus-model.mjs")).href);
const model = scriptedModel(readFileSync(process.argv[2], "utf8"), {});
const server = await startFakeAnthropic({ respond: model.respond, keepBodies: true });
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "count") process.stdout.write(`${server.requests.length}\n`);
}
process.exit(0);
