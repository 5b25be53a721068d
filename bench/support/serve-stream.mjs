// The fake Messages API streaming its answers, in a process of its own. argv: the answer, characters
// per chunk, ms between chunks. A request sent whole is answered after as long as the stream would
// take, so both ways wait alike for the model. Prints its URL on the first line; answers each `timings`
// line on stdin with a JSON line: each request's arrival, first chunk and first text chunk (ms since
// the epoch), and whether it streamed.
import { createInterface } from "node:readline";
import { importFakeServer } from "./fake-server.mjs";

const [answer, chunkChars, chunkDelayMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
// message_start, ping, content_block_start, the pieces, content_block_stop, message_delta, message_stop.
const streamMs = (Math.ceil(answer.length / chunkChars) + 5) * chunkDelayMs;
const { startFakeAnthropic, reply } = await importFakeServer();
const server = await startFakeAnthropic({
  stream: { chunkChars, chunkDelayMs },
  respond: (request) =>
    request.body?.stream === true ? reply.text(answer) : reply.text(answer, { delayMs: streamMs }),
});
process.stdout.write(`${server.url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== "timings") continue;
  const timings = server.requests.map((request) => ({
    receivedAt: request.receivedAt,
    streamed: request.stream !== undefined,
    firstChunkAt: request.stream?.firstChunkAt,
    firstTextAt: request.stream?.firstTextAt,
  }));
  process.stdout.write(`${JSON.stringify(timings)}\n`);
}
process.exit(0);
