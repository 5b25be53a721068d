/**
 * A list whose last statement is a `do:` that always raises gives no value: nothing is assigned
 * after the `throw`, so TypeScript sees that the list leaves. A program ending in a `choice` (or an
 * `if`/`else`) every body of which is such a `do:` then type-checks in strict mode; it used to
 * assign the program's final result after each `throw`, and TypeScript then said the result was used
 * before being assigned: `build --typecheck` stopped with an internal error (found by the generated
 * programs of test/soundness/generated.slow.test.ts, seed 345).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { lines } from "../support/lines.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const programs: Record<string, string> = {
  "choice.prose": lines(
    'let a = session "Draft"',
    "choice **which way**:",
    '  option "Left":',
    "    do:",
    '      throw "left"',
    '  option "Right":',
    "    do:",
    '      session "Try"',
    '      throw "right"',
  ),
  "if-else.prose": lines(
    'let a = session "Draft"',
    "if **stop**:",
    "  do:",
    '    throw "stopped"',
    "else:",
    "  do:",
    '    throw "went on"',
  ),
  "block.prose": lines(
    "block check(x):",
    "  choice **which**:",
    '    option "A":',
    "      do:",
    '        throw "a"',
    '    option "B":',
    "      do:",
    '        throw "b"',
    'output checked = do check("x")',
  ),
  "item.prose": lines(
    'let xs = ["a"] | map:',
    '  if item == "a":',
    "    do:",
    '      throw "a"',
    "  else:",
    "    do:",
    '      throw "other"',
    "output xs = xs",
  ),
};

it("lists ending in a `do:` that raises, under a choice, an if/else, a block and an item, type-check", async () => {
  const folder = temporaryFolder("prosec-e2e-raising-do-");
  for (const [name, source] of Object.entries(programs)) writeFileSync(join(folder, name), source);
  const built = await build(
    Object.keys(programs).map((name) => join(folder, name)),
    { typecheck: true, force: true },
  );
  expect(built.typeErrors).toEqual([]);
  expect(built.exitCode).toBe(0);
});

it("the program ending in such a choice runs its first session, then raises the chosen option's error", async () => {
  server = await startFakeAnthropic({ respond: deterministicModel(() => true) });
  const program = await loadProgram(programs["choice.prose"]!, "choice.prose");
  const run = program.run(
    {},
    { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-raising-do-run-"), maxRetries: 0 },
  );
  await expect(run).rejects.toMatchObject({
    name: "ProseError",
    message: expect.stringMatching(/^choice\.prose:\d+:\d+: (left|right)$/),
  });
  expect(server.requests.length).toBeGreaterThanOrEqual(2);
});
