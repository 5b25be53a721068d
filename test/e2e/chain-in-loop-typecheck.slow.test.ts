/**
 * A loop that assigns a name from an `->` chain whose first prompt reads that name (`draft = session
 * "Improve {draft}" -> session "Polish"`, the refine-in-a-loop pattern) type-checks in strict mode:
 * the chain's first result is declared with its type. Inferred, TypeScript found it circular ("'$step'
 * implicitly has type 'any'") and `build --typecheck` stopped with an internal error (found by the
 * generated programs of test/soundness/generated.slow.test.ts, seed 1270).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { lines } from "../support/lines.js";
import { temporaryFolder } from "./harness.js";

it("chains in loops that reassign what their first prompt reads type-check", async () => {
  const folder = temporaryFolder("prosec-e2e-chain-in-loop-");
  writeFileSync(
    join(folder, "refine.prose"),
    lines(
      'let draft = session "Draft"',
      "repeat 2:",
      '  draft = session "Improve {draft}" -> session "Polish"',
      "loop until **good enough** (max: 3):",
      '  draft = session "Rate {draft}" -> session "Rewrite {draft}" -> session "Check it"',
      'for x in ["a", "b"]:',
      '  let note = session "Note {x} beside {draft}" -> session "Sum up"',
      '  draft = session "Merge {note} into {draft}" -> session "Tidy"',
      "draft = { key: 1 }",
      "output final = draft",
    ),
  );
  const built = await build([join(folder, "refine.prose")], { typecheck: true, force: true });
  expect(built.typeErrors).toEqual([]);
  expect(built.exitCode).toBe(0);
});
