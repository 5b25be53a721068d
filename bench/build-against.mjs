// `prosec build --force` of this checkout against another build of prosec, side by side: the corpus
// (50 programs) and a 50,000-line `bench/synthetic.mjs` program, each build a process of its own as a
// user runs it, rounds alternating which prosec goes first. Prints each round's seconds and the
// per-round ratio this / other (min / median / max).
//
//   node bench/build-against.mjs <other-prosec-root> [corpus-rounds] [large-rounds]
//
// <other-prosec-root> holds bin/prosec and its dist/ (e.g. a copy of main's, made before a change).
// Not a `*.bench.mjs`: `npm run bench` has no other build to compare against.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { syntheticProgram } from "./synthetic.mjs";
import { pairedRounds, printTable, spread } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const [otherRoot, corpusRounds = "5", largeRounds = "3"] = process.argv.slice(2);
if (!otherRoot)
  throw new Error("usage: node bench/build-against.mjs <other-prosec-root> [corpus-rounds] [large-rounds]");

const corpus = join(root, "examples/openprose");
const corpusFiles = readdirSync(corpus)
  .filter((name) => name.endsWith(".prose"))
  .sort()
  .map((name) => join(corpus, name));
const dir = mkdtempSync(join(tmpdir(), "prosec-build-against-"));
const large = join(dir, "large.prose");
writeFileSync(large, syntheticProgram(50_000));

/** `prosec build --force` of `files` with the prosec at `prosecRoot`, into a folder of its own: seconds. */
function build(prosecRoot, files, outName) {
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [join(prosecRoot, "bin/prosec"), "build", ...files, "--force", "--out-dir", join(dir, outName)],
    { encoding: "utf8" },
  );
  if (run.status !== 0) throw new Error(`${prosecRoot}: prosec build exited ${run.status}: ${run.stdout}${run.stderr}`);
  return (performance.now() - started) / 1000;
}

const rows = [["program", "rounds (this / other, s)", "ratio this / other (min / median / max)"]];
for (const [label, files, rounds] of [
  ["the corpus (50 programs)", corpusFiles, Number(corpusRounds)],
  ["a 50,000-line program", [large], Number(largeRounds)],
]) {
  const { a, b, ratios } = await pairedRounds(
    rounds,
    async () => build(root, files, "this"),
    async () => build(resolve(otherRoot), files, "other"),
  );
  const perRound = a.map((seconds, index) => `${seconds.toFixed(1)} / ${b[index].toFixed(1)}`).join(", ");
  rows.push([label, perRound, spread(ratios, 2)]);
}
rmSync(dir, { recursive: true, force: true });
printTable(rows);
