#!/usr/bin/env node
/**
 * The soundness property on thousands of generated programs (the test suite runs a few hundred):
 *
 *   node scripts/soundness.mjs [FIRST-LAST] [--corpus N]     e.g. node scripts/soundness.mjs 1-3000
 *
 * Runs test/soundness/generated.slow.test.ts over the seed range, in slices of 300 seeds (one
 * vitest run each, so memory stays bounded), and prints the figures: programs generated, accepted
 * by `check`, runs that finished, raised the program's own error or were stopped at the model-call
 * cap (a loop without `max:`), model calls, and violations
 * (a program `check` accepts that does not compile, type-check or run). Exit 1 on any violation.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const range = process.argv.slice(2).find((argument) => /^\d+-\d+$/.test(argument)) ?? "1-3000";
const corpusIndex = process.argv.indexOf("--corpus");
const corpus = corpusIndex === -1 ? "200" : process.argv[corpusIndex + 1];
const [first, last] = range.split("-").map(Number);
const slice = 240;
const folder = mkdtempSync(join(tmpdir(), "prosec-soundness-"));
const stats = join(folder, "stats.jsonl");
let failed = false;
for (let start = first; start <= last; start += slice) {
  const end = Math.min(last, start + slice - 1);
  const result = spawnSync("npx", ["vitest", "run", "test/soundness/generated.slow.test.ts"], {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: {
      ...process.env,
      PROSEC_SOUNDNESS_SEEDS: `${start}-${end}`,
      PROSEC_SOUNDNESS_CORPUS: start === first ? corpus : "0",
      PROSEC_SOUNDNESS_STATS: stats,
    },
  });
  process.stdout.write(`seeds ${start}-${end}: ${result.status === 0 ? "held" : "VIOLATED"}\n`);
  if (result.status !== 0) {
    failed = true;
    process.stdout.write(
      result.stdout
        .split("\n")
        .filter((line) => !/^\s*$/.test(line))
        .slice(-60)
        .join("\n") + "\n",
    );
  }
}
const totals = {};
for (const line of readFileSync(stats, "utf8").trim().split("\n")) {
  const figures = JSON.parse(line);
  const total = (totals[figures.kind] ??= {
    programs: 0,
    accepted: 0,
    violations: 0,
    ran: 0,
    raised: 0,
    stopped: 0,
    modelCalls: 0,
  });
  for (const key of Object.keys(total)) total[key] += figures[key];
}
for (const [kind, total] of Object.entries(totals)) {
  process.stdout.write(
    `${kind}: ${total.programs} programs, ${total.accepted} accepted by check, ${total.ran} ran to the end, ${total.raised} raised their own error, ${total.stopped} stopped at the model-call cap, ${total.modelCalls} model calls, ${total.violations} violations\n`,
  );
}
rmSync(folder, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
