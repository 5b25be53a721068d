/**
 * The soundness property on generated programs (issue 14): for every program `check` accepts,
 * compile succeeds, the module type-checks in strict mode and it runs against the scripted model
 * without an internal error; and `check` itself never throws. A few hundred programs here (seeds
 * from PROSEC_SOUNDNESS_SEEDS, `first-last`); `node scripts/soundness.mjs` runs thousands.
 */
import { appendFileSync, rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { corpusPrograms } from "../support/corpus.js";
import { at, mutations } from "../support/mutations.js";
import { generateProgram } from "../support/program-generator.js";
import { pick, seededRandom } from "../support/random.js";
import { checkSoundness, type CaseResult, type SoundnessCase } from "../support/soundness.js";
import { temporaryFolder } from "../support/temp.js";

const [first, last] = (process.env["PROSEC_SOUNDNESS_SEEDS"] ?? "1-120").split("-").map(Number) as [number, number];
const batch = 60;
/** A batch type-checks and runs its programs together: minutes on a loaded machine, never a hang. */
const timeout = 600_000;
const root = temporaryFolder("prosec-generated-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Generated programs, and a third of them again with a seeded edit or two (what a half-typed file looks like). */
function casesFor(seeds: readonly number[]): SoundnessCase[] {
  return seeds.flatMap((seed) => {
    const program = generateProgram(seed, 6 + (seed % 5), 1 + (seed % 4));
    const cases: SoundnessCase[] = [{ name: `seed-${seed}`, files: program.files }];
    if (seed % 3 === 0)
      cases.push({
        name: `seed-${seed}-mutated`,
        files: { ...program.files, "main.prose": mutate(program.files["main.prose"]!, seed) },
      });
    return cases;
  });
}

/** Corpus programs with seeded edits: real programs, half-typed. */
function corpusCases(count: number, seed: number): SoundnessCase[] {
  const random = seededRandom(seed);
  const names = Object.keys(mutations);
  return Array.from({ length: count }, (_, index) => {
    const program = pick(random, corpusPrograms);
    let lines = program.source.split("\n");
    for (let edit = 0, edits = 1 + at(random, 2); edit < edits; edit++)
      lines = mutations[pick(random, names)]!(lines, random);
    return { name: `corpus-${seed}-${index}`, files: { "main.prose": lines.join("\n") } };
  });
}

function mutate(source: string, seed: number): string {
  const random = seededRandom(seed * 7919);
  const names = Object.keys(mutations);
  return mutations[pick(random, names)]!(source.split("\n"), random).join("\n");
}

/** For scripts/soundness.mjs: one line of figures per batch, when it asks for them. */
function record(kind: string, results: readonly CaseResult[]): void {
  const file = process.env["PROSEC_SOUNDNESS_STATS"];
  if (!file) return;
  const accepted = results.filter((result) => !result.rejected);
  const figures = {
    kind,
    programs: results.length,
    accepted: accepted.length,
    violations: results.filter((result) => result.violation).length,
    ran: accepted.filter((result) => result.outcome && "outputs" in result.outcome).length,
    raised: accepted.filter((result) => result.outcome && "raised" in result.outcome).length,
    stopped: accepted.filter((result) => result.outcome && "stopped" in result.outcome).length,
    modelCalls: accepted.reduce((sum, result) => sum + result.prompts.length, 0),
  };
  appendFileSync(file, `${JSON.stringify(figures)}\n`);
}

function report(results: readonly CaseResult[], cases: readonly SoundnessCase[]): string {
  return results
    .filter((result) => result.violation)
    .map(
      (result) =>
        `${result.name} (${result.violation!.stage}): ${result.violation!.error}\n${cases.find((entry) => entry.name === result.name)!.files["main.prose"]}`,
    )
    .join("\n\n");
}

describe("programs that check clean compile, type-check and run", () => {
  const seeds = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  const batches = Array.from({ length: Math.ceil(seeds.length / batch) }, (_, index) =>
    seeds.slice(index * batch, (index + 1) * batch),
  );

  it.each(batches.map((seedsOfBatch) => [`${seedsOfBatch[0]}-${seedsOfBatch.at(-1)}`, seedsOfBatch] as const))(
    "generated, seeds %s",
    async (_, seedsOfBatch) => {
      const cases = casesFor(seedsOfBatch);
      const results = await checkSoundness(cases, root);
      record("generated", results);
      expect(report(results, cases)).toBe("");
      // The generator must write mostly valid programs, or the property is tested on nothing.
      const accepted = results.filter((result) => !result.rejected);
      expect(accepted.length).toBeGreaterThan(seedsOfBatch.length / 2);
      // ... that do something: most runs reach the model, and some end in the program's own error.
      expect(accepted.filter((result) => result.prompts.length > 0).length).toBeGreaterThan(accepted.length / 2);
      // Typed sessions (`returns:`) among them, checked, built, type-checked and run with valid answers.
      const typed = accepted.filter((result) =>
        cases.find((entry) => entry.name === result.name)!.files["main.prose"]!.includes("returns:"),
      );
      expect(typed.length).toBeGreaterThan(0);
      expect(typed.some((result) => result.outcome !== undefined && "outputs" in result.outcome)).toBe(true);
    },
    timeout,
  );

  it(
    "corpus programs with seeded edits",
    async () => {
      const count = Number(process.env["PROSEC_SOUNDNESS_CORPUS"] ?? 30);
      const cases = corpusCases(count, first);
      const results = await checkSoundness(cases, root);
      record("corpus", results);
      expect(report(results, cases)).toBe("");
      // (scripts/soundness.mjs asks for corpus programs in its first slice only.)
      if (count > 0) expect(results.filter((result) => !result.rejected).length).toBeGreaterThan(0);
    },
    timeout,
  );
});
