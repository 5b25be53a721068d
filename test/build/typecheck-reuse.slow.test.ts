/**
 * `typecheck` keeps one project per process (src/project/typecheck.ts): each check must see only its
 * own modules, as they are now, and their neighbours on disk as they are now.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { typecheck } from "../../src/project/typecheck.js";
import { removeTemporaryFolders, temporaryFolder } from "../support/temp.js";

afterAll(removeTemporaryFolders);

const typed = (type: string) => `import type { RunOptions } from "prosec/runtime";\nexport const value: ${type} = 1;\n`;

describe("type-checks in one process", () => {
  it("see the code each is given, at the same path", async () => {
    const path = join(temporaryFolder("prosec-typecheck-"), "main.ts");
    expect(await typecheck([{ path, code: typed("number") }])).toEqual([]);
    const errors = await typecheck([{ path, code: typed("string") }]);
    expect(errors.map((error) => error.message)).toEqual(["Type 'number' is not assignable to type 'string'."]);
    expect(await typecheck([{ path, code: typed("number") }])).toEqual([]);
  });

  it("do not see the modules an earlier check was given", async () => {
    const folder = temporaryFolder("prosec-typecheck-");
    const helper = { path: join(folder, "helper.ts"), code: "export const helper = 1;\n" };
    const main = {
      path: join(folder, "main.ts"),
      code: 'import { helper } from "./helper.js";\nexport const x = helper;\n',
    };
    expect(await typecheck([main, helper])).toEqual([]);
    const alone = await typecheck([main]);
    expect(alone.map((error) => error.message)).toEqual([
      "Cannot find module './helper.js' or its corresponding type declarations.",
    ]);
  });

  it("read a neighbour on disk as it is at each check", async () => {
    const folder = temporaryFolder("prosec-typecheck-");
    const main = {
      path: join(folder, "main.ts"),
      code: 'import { n } from "./helper.js";\nexport const x: number = n;\n',
    };
    writeFileSync(join(folder, "helper.ts"), "export const n = 1;\n");
    expect(await typecheck([main])).toEqual([]);
    writeFileSync(join(folder, "helper.ts"), 'export const n = "one";\n');
    const errors = await typecheck([main]);
    expect(errors.map((error) => error.message)).toEqual(["Type 'string' is not assignable to type 'number'."]);
  });
});
