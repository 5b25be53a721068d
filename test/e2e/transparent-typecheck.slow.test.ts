/**
 * The modules of loops whose iterations end in an `if` that only leaves, with a `break` that carries
 * the iteration's value out (transparent-results.test.ts runs them), type-check in strict mode
 * (ts-morph: slow). A `do:` body inside such a loop keeps its own value's declaration; a block or
 * iteration ending in a standing `try:` gives the value of whichever body ran, else the one before; a
 * `try:` or an `if` before the `if` an iteration ends with gives it too, and a `break` carries it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { temporaryFolder } from "./harness.js";
import { lines } from "../support/lines.js";

it("loops whose iteration ends in an `if` with a `break`, and lists ending in a `try:`, type-check", async () => {
  const folder = temporaryFolder("prosec-e2e-transparent-typecheck-");
  writeFileSync(
    join(folder, "breaks.prose"),
    lines(
      "let drafts = loop (max: 3) as round:",
      '  let draft = session "Draft {round}"',
      "  if **good enough**:",
      "    break",
      'let scanned = for x in ["a", "b", "c"]:',
      '  session "Scan {x}"',
      '  if x == "b":',
      "    break",
      'let chosen = for x in ["a", "b"]:',
      '  let r = session "R {x}"',
      "  choice **next**:",
      '    option "Stop":',
      "      break",
      '    option "More":',
      '      session "More {x}"',
      "let inline = repeat 2:",
      "  let v = do:",
      '    session "Inline"',
      "    if **enough**:",
      "      break",
      '  session "After {v}"',
      "block attempt(flaky):",
      '  session "Fetch"',
      "  try:",
      "    if flaky:",
      '      throw "later"',
      "  catch:",
      '    session "Handled"',
      "block both():",
      "  try:",
      '    session "Try"',
      "  catch:",
      '    session "Caught"',
      "let rounds = loop (max: 2):",
      '  session "Round"',
      "  try:",
      "    if **stop**:",
      "      break",
      "  finally:",
      '    session "Cleanup"',
      "let settled = repeat 1 as i:",
      "  try:",
      '    let fetched = session "Fetch"',
      "  catch:",
      '    session "Never"',
      "  if **stop**:",
      "    break",
      "  else:",
      '    let draft = session "Draft {i}"',
      "let stopped = repeat 2 as i:",
      "  try:",
      '    session "Try {i}"',
      "  catch:",
      '    throw "again"',
      "  if **stop**:",
      "    break",
      "let finals = repeat 3 as i:",
      "  if **done {i}**:",
      '    session "Final {i}"',
      "    break",
      'let scans = for x in ["a", "b"]:',
      '  if x == "a":',
      '    session "Last {x}"',
      "    break",
      "block pair():",
      "  if **first**:",
      '    session "First"',
      "  if **second**:",
      '    session "Second"',
      "output settled = settled",
      "output stopped = stopped",
      "output finals = finals",
      "output scans = scans",
      "output pair = do pair()",
      "output attempted = do attempt(true)",
      "output both = do both()",
      "output rounds = rounds",
      "output drafts = drafts",
      "output scanned = scanned",
      "output chosen = chosen",
      "output inline = inline",
    ),
  );
  const built = await build([join(folder, "breaks.prose")], { typecheck: true, force: true });
  expect(built.typeErrors).toEqual([]);
  expect(built.exitCode).toBe(0);
});
