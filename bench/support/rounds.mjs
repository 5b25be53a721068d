// What every benchmark shares: the fake server in its own process, and per-round ratios. The machine
// is shared, so both sides of a comparison are timed back to back in each round (alternating which
// goes first) and the figure is the ratio of each round, reported as min / median / max: a load spike
// hits both halves of a round, not one side of the comparison.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { transpileFakeServer } from "./fake-server.mjs";

const serveScript = fileURLToPath(new URL("./serve.mjs", import.meta.url));

/**
 * Starts a server script in a child process that prints its URL, then answers each line written to its
 * stdin with one line: { url, ask(question), close() }.
 */
export async function serverProcess(script, args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const url = (await lines.next()).value;
  return {
    url,
    async ask(question) {
      child.stdin.write(`${question}\n`);
      return (await lines.next()).value;
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}

/** Starts the fake server in a child process: { url, requestCount(), close() }. */
export async function fakeServerProcess(latencyMs = 0, answer = "A short answer.") {
  transpileFakeServer();
  const server = await serverProcess(serveScript, [String(latencyMs), answer]);
  return { url: server.url, requestCount: async () => Number(await server.ask("count")), close: server.close };
}

/** Runs `rounds` rounds of `a` and `b` back to back (alternating the order); returns both series and the per-round ratios a / b. */
export async function pairedRounds(rounds, a, b) {
  const as = [];
  const bs = [];
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    let x;
    let y;
    if (round % 2 === 0) {
      x = await a();
      y = await b();
    } else {
      y = await b();
      x = await a();
    }
    as.push(x);
    bs.push(y);
    ratios.push(x / y);
  }
  return { a: as, b: bs, ratios };
}

export function median(values) {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
}

/** `min / median / max` of per-round ratios. */
export function spread(ratios, digits = 3) {
  const sorted = [...ratios].sort((x, y) => x - y);
  return `${sorted[0].toFixed(digits)} / ${median(sorted).toFixed(digits)} / ${sorted.at(-1).toFixed(digits)}`;
}

export async function timed(work) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

export function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  rows.forEach((row, index) => {
    console.log(`| ${row.map((cell, column) => String(cell).padEnd(widths[column])).join(" | ")} |`);
    if (index === 0) console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`);
  });
}
