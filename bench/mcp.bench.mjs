// What prosec adds to an MCP call (issue 44): server-everything's `echo` over stdio, called N times
// per round through prosec's MCP tool (the built runtime's `mcpTools` definition: the client, the
// result made text, the abort signal) and directly through the same client package, in alternating
// rounds; reported per call, min / median / max of the per-round ratio and of the added microseconds.
// Start-up: from the first agent's tool list being asked (the client imported, the server spawned,
// initialized and listed) to the first result, min / median / max of fresh servers. The session's own
// steps around a call (permission check, redaction, journal line) are the built-in tools' and are not
// repeated here. Measured on this 2-core machine under the other helpers' load.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { median, printTable } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const { McpServers } = await import(`${root}dist/runtime/tools/mcp/servers.js`);
const { mcpTools } = await import(`${root}dist/runtime/tools/mcp/mcp-tools.js`);

const CALLS = 200;
const ROUNDS = 7;
const config = {
  file: ".mcp.json",
  servers: new Map([
    [
      "everything",
      { type: "stdio", name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], env: {} },
    ],
  ]),
};
const settings = { cwd: root, env: {}, apiKey: undefined, secret: () => {}, log: () => {} };
const signal = new AbortController().signal;
const options = { redact: (text) => text, notice: () => {} };

// Start-up on the first call.
const startups = [];
for (let round = 0; round < 5; round++) {
  const servers = new McpServers(config, settings);
  const started = performance.now();
  const [echo] = await mcpTools(["everything/echo"], servers, signal, options);
  await echo.run({ message: "hi" }, { signal });
  startups.push(performance.now() - started);
  await servers.close();
}

// Per call: prosec's tool and the bare client, each on a server of its own, rounds alternating.
const servers = new McpServers(config, settings);
const [echo] = await mcpTools(["everything/echo"], servers, signal, options);
const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" }),
);
const perCall = async (call) => {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  return ((performance.now() - started) * 1000) / CALLS;
};
await perCall((i) => echo.run({ message: `warm ${i}` }, { signal }));
await perCall((i) => client.callTool({ name: "echo", arguments: { message: `warm ${i}` } }));
const ratios = [];
const added = [];
const direct = [];
for (let round = 0; round < ROUNDS; round++) {
  const bare = await perCall((i) => client.callTool({ name: "echo", arguments: { message: `m ${i}` } }));
  const through = await perCall((i) => echo.run({ message: `m ${i}` }, { signal }));
  direct.push(bare);
  ratios.push(through / bare);
  added.push(through - bare);
}
await servers.close();
await client.close();

const triple = (values, digits = 0) =>
  `${Math.min(...values).toFixed(digits)} / ${median(values).toFixed(digits)} / ${Math.max(...values).toFixed(digits)}`;
printTable([
  ["measure", "min / median / max"],
  [`an echo call, the client alone (µs per call, ${CALLS} calls a round, ${ROUNDS} rounds)`, triple(direct)],
  ["through prosec's MCP tool ÷ the client alone (per-round ratio)", triple(ratios, 2)],
  ["added by prosec (µs per call)", triple(added)],
  ["start-up to the first result: import, spawn, initialize, list, call (ms, 5 fresh servers)", triple(startups)],
]);
