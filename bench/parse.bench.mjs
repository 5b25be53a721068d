// Parse time vs lexing alone (the floor), and peak memory, for the corpus and synthetic programs.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spread } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = (path) => join(root, "dist/src/phases/1-parse", path);

if (process.argv[2] === "--measure") {
  await measure(process.argv[3]);
} else if (process.argv[2] === "--memory") {
  await memory(process.argv[3]);
} else {
  await report();
}

async function report() {
  const rows = [["input", "lines", "lex ms", "parse ms", "parse/lex per round (min / median / max)", "peak RSS MB"]];
  const results = {};
  for (const input of ["corpus", "2000", "20000", "100000"]) {
    const result = { ...child("--measure", input), ...child("--memory", input) };
    results[input] = result;
    rows.push([
      input,
      result.lines,
      result.lexMs.toFixed(1),
      result.parseMs.toFixed(1),
      spread(result.ratios, 2),
      result.peakRssMb.toFixed(0),
    ]);
  }
  printTable(rows);
  const growth = results["100000"].parseMs / results["20000"].parseMs;
  console.log(`\ngrowth 20k -> 100k lines: ${growth.toFixed(2)}x the time for 5x the lines (target at most 6x)`);
}

function child(mode, input) {
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), mode, input], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

async function sourcesFor(input) {
  const { syntheticProgram } = await import("./synthetic.mjs");
  return input === "corpus" ? corpusSources() : [syntheticProgram(Number(input))];
}

/** Peak RSS of one parse, in a process that does nothing else. */
async function memory(input) {
  const { parse } = await import(dist("index.js"));
  const sources = await sourcesFor(input);
  const asts = sources.map((source) => parse(source).ast);
  process.stdout.write(JSON.stringify({ peakRssMb: process.resourceUsage().maxRSS / 1024, statements: asts.length }));
}

async function measure(input) {
  const { LineMap } = await import(dist("line-map.js"));
  const { scan } = await import(dist("lexer.js"));
  const { layout } = await import(dist("layout.js"));
  const { parse } = await import(dist("index.js"));
  const sources = await sourcesFor(input);
  const lines = sources.reduce((sum, source) => sum + source.split("\n").length - 1, 0);
  const lex = () =>
    sources.forEach((source) => {
      const map = new LineMap(source);
      for (const _token of layout(map, scan(map, []), [])) {
        // lexing and layout only
      }
    });
  const parseAll = () =>
    sources.forEach((source) => {
      const result = parse(source);
      if (result.diagnostics.length > 0) throw new Error(`${input}: ${result.diagnostics[0].message}`);
    });
  const { lexMs, parseMs, ratios } = interleaved(lex, parseAll);
  process.stdout.write(JSON.stringify({ lines, lexMs, parseMs, ratios }));
}

function corpusSources() {
  const directory = join(root, "examples/openprose");
  return readdirSync(directory)
    .filter((name) => name.endsWith(".prose"))
    .sort()
    .map((name) => readFileSync(join(directory, name), "utf8"));
}

/**
 * Lexing and parsing measured in alternation, so that load from other processes on the machine
 * falls on both alike: a warm-up of both, then rounds of two lexes and two parses (at least 11
 * rounds and about 3 seconds). Only the second of each pair is timed, so that it runs in its own
 * steady state and never pays for garbage the other left. Reports the median of each and the
 * per-round ratios.
 */
function interleaved(lex, parse) {
  for (const start = performance.now(); performance.now() - start < 1000;) {
    lex();
    parse();
  }
  const lexTimes = [];
  const parseTimes = [];
  const ratios = [];
  for (
    const start = performance.now();
    lexTimes.length < 11 || (performance.now() - start < 3000 && lexTimes.length < 201);
  ) {
    lex();
    const lexMs = timed(lex);
    parse();
    const parseMs = timed(parse);
    lexTimes.push(lexMs);
    parseTimes.push(parseMs);
    ratios.push(parseMs / lexMs);
  }
  return { lexMs: median(lexTimes), parseMs: median(parseTimes), ratios };
}

function timed(work) {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  rows.forEach((row, index) => {
    console.log(`| ${row.map((cell, column) => String(cell).padEnd(widths[column])).join(" | ")} |`);
    if (index === 0) console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`);
  });
}
