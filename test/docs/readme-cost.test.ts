/**
 * The README's front-page claim about its example's cost is what `prosec cost` says of that example:
 * the program is read from the README, costed by the CLI, and the sentence must carry its figures.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { formatDollars } from "../../src/phases/2-analyze/cost/format.js";
import { prosec, repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

it("the README's `prosec cost review.prose` sentence has the calls and dollars prosec cost gives", () => {
  const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
  const program = /## A 30-second example\n[\s\S]*?```prose\n([\s\S]*?)```/.exec(readme)![1]!;
  const claim = /`prosec cost review\.prose` says the run makes at most (\d+) model calls, about (\$[\d.]+)\./.exec(
    readme.replace(/\s+/g, " "),
  );
  expect(claim, "the README's sentence about `prosec cost review.prose`").not.toBeNull();
  const folder = temporaryFolder("prosec-readme-cost-");
  writeFileSync(join(folder, "review.prose"), program);
  const costed = prosec(["cost", "review.prose", "--json"], folder, { PROSEC_PRICES: "" });
  expect(costed.status, costed.stderr).toBe(0);
  const [figures] = (JSON.parse(costed.stdout) as { programs: { calls: number; dollars: number }[] }).programs;
  expect({ calls: Number(claim![1]), dollars: claim![2] }).toEqual({
    calls: figures!.calls,
    dollars: formatDollars(figures!.dollars),
  });
});
