/**
 * Edits of a `use`d program, main unchanged, as each backend sees them (issue 41). A file run's
 * resume reads the used programs' hashes from the module (`ProgramInfo.uses`, recorded in run.json;
 * test/run/rerun-guard.slow.test.ts drives it through the CLI). A DBOS run is never resumed against
 * an edited program: its workers are named by a hash of every compiled module (the used ones too),
 * a run is continued only by workers of the version it was submitted with, and a fork with a file
 * of another version is refused (test/dbos/fork-cli.test.ts, runs-cli.test.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProgram } from "../../src/run/load-program.js";
import { temporaryFolder } from "../support/temp.js";

const USED = `input plan: "The plan"

output done = session "Do the work"
  context: plan
`;

const CALLER = `use "./tools.prose" as tools

let plan = session "Plan the work"
output result = tools(plan: plan)
`;

describe("an edit of a used program alone", () => {
  it("changes the module's record of it and the program version DBOS workers are named by", async () => {
    const cwd = temporaryFolder("prosec-used-version-");
    writeFileSync(join(cwd, "work.prose"), CALLER);
    writeFileSync(join(cwd, "tools.prose"), USED);
    const before = await loadProgram("work.prose", { cwd });
    writeFileSync(join(cwd, "tools.prose"), USED.replace("Do the work", "Do the work carefully"));
    const after = await loadProgram("work.prose", { cwd });

    const [was, now] = [before.module!.default, after.module!.default];
    expect(now.sourceHash).toBe(was.sourceHash);
    expect(Object.keys(now.uses ?? {})).toEqual(["tools"]);
    expect(now.uses!["tools"]!.sourceHash).not.toBe(was.uses!["tools"]!.sourceHash);
    expect(now.uses!["tools"]!.text).toContain("Do the work carefully");
    expect(after.codeHash).toMatch(/^[0-9a-f]{16}$/);
    expect(after.codeHash).not.toBe(before.codeHash);
  });
});
