// The fake Messages API server in a process of its own, so the measured process pays nothing for it.
// argv: latency in ms. Prints its URL on the first line; answers each `count` line on stdin with the
// number of requests it has received.
import { createInterface } from "node:readline";
import { importFakeServer } from "./fake-server.mjs";

const { startFakeAnthropic, reply } = await importFakeServer();
const server = await startFakeAnthropic({
  respond: () => reply.text(process.argv[3] ?? "A short answer."),
  latencyMs: Number(process.argv[2] ?? 0),
  keepBodies: false,
});
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "count") process.stdout.write(`${server.requests.length}\n`);
}
process.exit(0);
