// `prosec build` over the corpus: prosec's own work (parse + check + lower) against prettier
// (the floor: every module is formatted), and a rebuild with nothing changed (whole CLI process).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, spread } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const corpus = join(root, "examples/openprose");
const files = readdirSync(corpus)
  .filter((name) => name.endsWith(".prose"))
  .sort()
  .map((name) => join(corpus, name));
const sources = files.map((file) => ({ name: file.split("/").pop(), source: readFileSync(file, "utf8") }));

const { lowerSource } = await import(join(root, "dist/src/compile.js"));
const { format } = await import(join(root, "dist/src/phases/3-transform/index.js"));

const rounds = 7;
const own = [];
const prettier = [];
const ratios = [];
for (let round = 0; round < rounds + 1; round++) {
  let lowered = [];
  const start = performance.now();
  for (const { name, source } of sources) lowered.push(lowerSource(source, name).code);
  const middle = performance.now();
  for (const code of lowered) await format(code);
  const end = performance.now();
  // The first round warms up the JIT and loads prettier: not counted.
  if (round === 0) continue;
  own.push(middle - start);
  prettier.push(end - middle);
  ratios.push((middle - start) / (end - middle));
}

const outDir = mkdtempSync(join(tmpdir(), "prosec-bench-"));
const cli = (...extra) => {
  const start = performance.now();
  const run = spawnSync(
    process.execPath,
    [join(root, "bin/prosec"), "build", ...files, "--out-dir", outDir, ...extra],
    { encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(run.stdout + run.stderr);
  return performance.now() - start;
};
const full = [];
for (let round = 0; round < 3; round++) full.push(cli("--force"));
const noop = [];
for (let round = 0; round < 5; round++) noop.push(cli());
const typechecked = cli("--force", "--typecheck");
rmSync(outDir, { recursive: true, force: true });

const lines = sources.reduce((sum, { source }) => sum + source.split("\n").length, 0);
const rows = [
  ["measure", "ms (median)"],
  [`parse + check + lower (${sources.length} programs, ${lines} lines)`, median(own).toFixed(1)],
  ["prettier (format every module)", median(prettier).toFixed(1)],
  ["prosec's work / prettier, per round (min / median / max)", spread(ratios, 2)],
  ["CLI: full build (process, --force)", median(full).toFixed(0)],
  ["CLI: full build with --typecheck", typechecked.toFixed(0)],
  ["CLI: no-op rebuild (process)", median(noop).toFixed(0)],
];
const width = Math.max(...rows.map((row) => row[0].length));
for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${String(value).padStart(10)}`);
console.log(
  `\ntargets: prosec's work at most 0.5x prettier (${median(ratios) <= 0.5 ? "met" : "NOT met"}); no-op rebuild under 1000 ms (${median(noop) < 1000 ? "met" : "NOT met"})`,
);
