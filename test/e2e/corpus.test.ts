/**
 * End to end: every corpus program (the 50 that are not `roadmap/` sketches) is compiled with the
 * compiler API, imported, and run on the runtime against a scripted fake model that answers every
 * session, judgment, choice and extraction (test/support/corpus-model.ts, which says how; shared with
 * the cost benchmark), with `concurrency: 1`. Each run must FINISH with every declared output, or stop
 * with the program's OWN `throw` (the one its scenario names, raised on a `throw` line) — never with
 * any other error, and never by a deadline. Its calls must stay within the program's static bound
 * (corpus-run.ts runs each; corpus-misbehaving.slow.test.ts runs them against a model that misbehaves).
 *
 * The number of model calls per program and kind is compared with the committed `model-calls.json`
 * (update it deliberately with `npx vitest run test/e2e/corpus.test.ts -u`).
 *
 * Subsumes the old test/runtime/corpus-run.test.ts (which accepted any located ProseError).
 */
import { describe, expect, it } from "vitest";
import { corpusPrograms } from "../support/corpus.js";
import { runCorpusProgram } from "./corpus-run.js";
import { callKind, type CallKind } from "./harness.js";

type Counts = Record<CallKind, number>;
const table = new Map<string, Counts>();

describe("corpus programs run end to end against a scripted model", () => {
  for (const program of corpusPrograms) {
    it(program.name, async () => {
      const requests = await runCorpusProgram(program);
      const counts: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
      for (const request of requests) counts[callKind(request)]++;
      table.set(program.name, counts);
    });
  }

  it("makes the committed number of model calls per program (model-calls.json)", async () => {
    expect([...table.keys()].sort(), "run the whole file: the table needs every program").toEqual(
      corpusPrograms.map((program) => program.name).sort(),
    );
    const totals: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
    for (const counts of table.values())
      for (const kind of Object.keys(totals) as CallKind[]) totals[kind] += counts[kind];
    // One program per line, so a change shows as a one-line diff.
    const row = (counts: object) => JSON.stringify(counts).replace(/,/g, ", ").replace(/:/g, ": ");
    const rows = [...table.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, counts]) => `    ${JSON.stringify(name)}: ${row(counts)}`);
    const all = totals.session + totals.judgment + totals.choice + totals.extraction;
    const document = `{\n  "totals": ${row({ ...totals, all })},\n  "programs": {\n${rows.join(",\n")}\n  }\n}\n`;
    expect(JSON.parse(document)).toBeTypeOf("object");
    await expect(document).toMatchFileSnapshot("./model-calls.json");
  });
});
