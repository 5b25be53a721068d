/** The module of a program run in parts, with a `return` inside a part, type-checks (ts-morph: slow). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { build } from "../../src/project/build.js";
import { temporaryFolder } from "./harness.js";
import { PARTS_PROGRAM } from "./parts-program.js";

it("a program run in parts that returns from inside a part type-checks", async () => {
  const folder = temporaryFolder("prosec-e2e-jumps-parts-");
  writeFileSync(join(folder, "parts.prose"), PARTS_PROGRAM);
  const built = await build([join(folder, "parts.prose")], { typecheck: true, force: true });
  expect(built.typeErrors).toEqual([]);
  expect(built.exitCode).toBe(0);
});
