// Inputs that used to cost seconds or crash (issue 14): one long line, and deep nesting. Each is
// checked the way `prosec check` does (parse + analyse), medians of 5 rounds after a warm-up;
// the 1 MB line is compared with 1 MB of ordinary program text, side by side in the same rounds.
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const { checkSource } = await import(join(root, "dist/src/pipeline.js"));
const { compile } = await import(join(root, "dist/src/compile.js"));
const { spellingWork } = await import(join(root, "dist/src/phases/1-parse/spelling.js"));

const megabyte = 1_000_000;
const ordinary = Array.from({ length: megabyte / 25 }, (_, index) => `let n${index} = "some text"`)
  .join("\n")
  .slice(0, megabyte);
const inputs = {
  "ordinary program, 1 MB": ordinary,
  "one line `xxx…x y`, 1 MB": `${"x".repeat(megabyte)} y`,
  "one line `let a = xxx…x`, 1 MB": `let a = ${"x".repeat(megabyte)}`,
  "one string literal, 1 MB": `session "${"x".repeat(megabyte)}"`,
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const rounds = 5;
const times = Object.fromEntries(Object.keys(inputs).map((name) => [name, []]));
for (const source of Object.values(inputs)) checkSource(source);
for (let round = 0; round < rounds; round++) {
  for (const [name, source] of Object.entries(inputs)) {
    const start = performance.now();
    checkSource(source);
    times[name].push(performance.now() - start);
  }
}
const base = median(times["ordinary program, 1 MB"]);
console.log("| input | check ms (median) | / ordinary 1 MB | edit-distance cells |");
console.log("| --- | --- | --- | --- |");
for (const [name, source] of Object.entries(inputs)) {
  const before = spellingWork.cells;
  checkSource(source);
  const cells = spellingWork.cells - before;
  console.log(
    `| ${name} | ${median(times[name]).toFixed(0)} | ${(median(times[name]) / base).toFixed(2)} | ${cells.toLocaleString("en")} |`,
  );
}

// Nesting: 1,000 levels are refused (P022) quickly; the deepest accepted program compiles.
const { nestingLimit } = await import(join(root, "dist/src/phases/1-parse/nesting.js"));
const indent = (depth) => "  ".repeat(depth);
const nested = (levels) =>
  [...Array.from({ length: levels }, (_, depth) => `${indent(depth)}do:`), `${indent(levels)}session "leaf"`].join(
    "\n",
  );
console.log(`\n| nested \`do:\` | check ms | compile (with prettier) ms | result |`);
console.log("| --- | --- | --- | --- |");
for (const levels of [48, 1000, 10000]) {
  const source = nested(levels);
  let start = performance.now();
  const codes = checkSource(source).diagnostics.map((diagnostic) => diagnostic.code);
  const checkMs = performance.now() - start;
  start = performance.now();
  const compiled = await compile(source, "deep.prose");
  const compileMs = performance.now() - start;
  console.log(
    `| ${levels.toLocaleString("en")} | ${checkMs.toFixed(0)} | ${compileMs.toFixed(0)} | ${compiled.code ? "compiles" : codes.join(", ")} |`,
  );
}
console.log(`\n(nesting limit: ${nestingLimit} levels of the syntax tree per statement)`);
