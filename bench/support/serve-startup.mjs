// The fake Messages API for bench/startup.bench.mjs, in a process of its own. argv: the Models API's
// latency in ms. Sessions get a short text; a judgment (a request forcing its answer tool) gets "no",
// so a loop `until` one runs to its `max:`. The Models API knows the default model (128,000 tokens).
// Prints its URL; answers each `count` line on stdin with the requests it has received, each `lookups`
// line with the Models API look-ups, each `last` line with the body of the last Messages request (JSON).
import { createInterface } from "node:readline";
import { importFakeServer } from "./fake-server.mjs";

const { startFakeAnthropic, reply } = await importFakeServer();
const server = await startFakeAnthropic({
  respond: (request) =>
    request.body?.tool_choice?.type === "tool"
      ? reply.toolUse([{ name: request.body.tool_choice.name, input: { answer: false, reason: "not yet" } }])
      : reply.text("A short answer."),
  models: { "claude-sonnet-5-5": { maxTokens: 128_000 } },
  modelsLatencyMs: Number(process.argv[2] ?? 0),
});
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "count") process.stdout.write(`${server.requests.length}\n`);
  if (line.trim() === "lookups") process.stdout.write(`${server.modelLookups.length}\n`);
  if (line.trim() === "last") process.stdout.write(`${JSON.stringify(server.requests.at(-1)?.body ?? null)}\n`);
}
process.exit(0);
