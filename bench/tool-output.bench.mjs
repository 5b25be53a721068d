// Tool output without bound (issue 26): a model asks for 200 reads of a 200 KB file per turn, for 8
// turns, through `prosec run` (a child process); the fake Messages API runs in a process of its own.
// Reported: the peak resident memory (VmHWM) of the `prosec run` process per round, min / median / max
// of 3; target under 300 MB (before the bounds on tool output: 1.6 GB). Measured on this 2-core machine
// under the other helpers' load: 151 / 157 / 172 MB.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transpileFakeServer } from "./support/fake-server.mjs";
import { median, printTable, serverProcess } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const API_KEY = "sk-ant-bench-0000000000";
const TURNS = 8;
const CALLS = 200;
const FILE_BYTES = 200 * 1024;

transpileFakeServer();
const rounds = [];
for (let round = 0; round < 3; round++) rounds.push(await floodThroughCli());
const peaks = rounds.map((result) => result.peakMb);
printTable([
  ["benchmark", "measured", "target", "ok"],
  [
    `${CALLS} reads of a ${FILE_BYTES / 1024} KB file per turn, ${TURNS} turns, \`prosec run\`: VmHWM per round (min / median / max of 3)`,
    `${Math.min(...peaks).toFixed(0)} / ${median(peaks).toFixed(0)} / ${Math.max(...peaks).toFixed(0)} MB (median ${median(rounds.map((r) => r.ms)).toFixed(0)} ms)`,
    "< 300 MB",
    Math.max(...peaks) < 300 ? "yes" : "NO",
  ],
]);

async function floodThroughCli() {
  const server = await floodServer();
  const cwd = mkdtempSync(join(tmpdir(), "prosec-tool-flood-bench-"));
  writeFileSync(join(cwd, "big.txt"), "0123456789abcdef".repeat(FILE_BYTES / 16));
  writeFileSync(join(cwd, "flood.prose"), 'session "Read big.txt, again and again"\n');
  const hwmFile = join(cwd, "vmhwm");
  try {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        "--import",
        pathToFileURL(join(root, "bench/support/vmhwm.mjs")).href,
        join(root, "bin/prosec"),
        "run",
        "flood.prose",
      ],
      {
        cwd,
        stdio: ["ignore", "ignore", "ignore"],
        env: { ...process.env, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url, PROSEC_VMHWM_FILE: hwmFile },
      },
    );
    const code = await new Promise((resolve) => child.on("close", resolve));
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`prosec run exited ${code}`);
    const requests = await server.requestCount();
    if (requests !== TURNS + 1) throw new Error(`prosec run sent ${requests} requests, not ${TURNS + 1}`);
    return { peakMb: Number(readFileSync(hwmFile, "utf8")), ms };
  } finally {
    server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function floodServer() {
  const script = join(root, "bench/support/serve-tool-flood.mjs");
  const server = await serverProcess(script, [String(TURNS), String(CALLS), "big.txt"]);
  return { url: server.url, requestCount: async () => Number(await server.ask("count")), close: server.close };
}
