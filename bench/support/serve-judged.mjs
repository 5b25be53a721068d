// The fake Messages API for evals, in a process of its own: a session gets a short text, a forced
// `answer` (a judgment) gets `true`, each after the latency in argv[2] ms. Prints its URL on the first
// line; answers each `count` line on stdin with the number of requests it has received.
import { createInterface } from "node:readline";
import { importFakeServer } from "./fake-server.mjs";

const { startFakeAnthropic, reply } = await importFakeServer();
const server = await startFakeAnthropic({
  respond: (request) =>
    request.body?.tool_choice === undefined
      ? reply.text("A short summary.")
      : reply.toolUse([{ name: "answer", input: { answer: true, reason: "it does" } }]),
  latencyMs: Number(process.argv[2] ?? 0),
});
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "count") process.stdout.write(`${server.requests.length}\n`);
}
process.exit(0);
