/**
 * A loop that assigns a name from an `->` chain whose first prompt reads that name (`draft = session
 * "Improve {draft}" -> session "Polish"`, the refine-in-a-loop pattern) type-checks in strict mode:
 * the chain's first result is declared with its type. Inferred, TypeScript found it circular ("'$step'
 * implicitly has type 'any'") and `build --typecheck` stopped with an internal error (found by the
 * generated programs of test/soundness/generated.slow.test.ts, seed 1270). The same held for a
 * `do:` value in a loop whose body assigns the name from itself (seed 1278): its result is now
 * declared with the type analysis gives it; so is a destructured value's (seed 1878).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { lines } from "../support/lines.js";
import { temporaryFolder } from "./harness.js";

it("chains, `do:` values and destructurings in loops that reassign what they read type-check", async () => {
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
  // The same with a `do:` whose inner loop assigns the name from itself (seed 1278).
  writeFileSync(
    join(folder, "do-in-loop.prose"),
    lines(
      "let n = 1",
      "repeat 2:",
      "  n = do:",
      "    loop (max: 2):",
      "      n = [n * 3]",
      'let draft = session "Draft"',
      'for x in ["a", "b"]:',
      "  draft = do:",
      "    repeat 2:",
      '      draft = session "Improve {draft}"',
      "output o = n",
      "output d = draft",
    ),
  );
  // And a destructuring in a loop whose value holds a judgment (seed 1878).
  writeFileSync(
    join(folder, "destructure-in-loop.prose"),
    lines(
      "parallel for n in [1, 2]:",
      "  loop (max: 1):",
      "    let { g } = { g: (**ready about {n}**) }",
      '    b = session "Check {g}"',
      "      returns: string | null",
    ),
  );
  const built = await build(
    ["refine.prose", "do-in-loop.prose", "destructure-in-loop.prose"].map((name) => join(folder, name)),
    { typecheck: true, force: true },
  );
  expect(built.typeErrors).toEqual([]);
  expect(built.exitCode).toBe(0);
});
