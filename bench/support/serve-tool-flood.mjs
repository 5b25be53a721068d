// A fake Messages API server, in a process of its own, playing a model that floods its session with
// tool calls: argv turns, calls per turn, path. Each of the first `turns` requests is answered with
// `calls` read_file calls of `path`, the next with a final answer. Prints its URL on the first line;
// answers each `count` line on stdin with the number of requests it has received.
import { createInterface } from "node:readline";
import { importFakeServer } from "./fake-server.mjs";

const { startFakeAnthropic, reply } = await importFakeServer();
const [turns, calls, path] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
const flood = () => reply.toolUse(Array.from({ length: calls }, () => ({ name: "read_file", input: { path } })));
const server = await startFakeAnthropic({
  script: [...Array.from({ length: turns }, flood), reply.text("read it all")],
  keepBodies: false,
});
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "count") process.stdout.write(`${server.requests.length}\n`);
}
process.exit(0);
