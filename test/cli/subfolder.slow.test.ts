/**
 * A newcomer's commands from a project's subfolder (`cd src`): each `prosec run` keeps its state under
 * the folder it was started from and golden tests run from the project's folder (docs/run-folder.md,
 * docs/testing.md), so from `src/` a run id or `tests/` is not found. The message says where it is
 * and from which folder to give the command, instead of only "no such run" or "no such folder".
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const RUN_ID = "20261129-101500-a1b2c3";
let project = "";
let src = "";

beforeAll(() => {
  project = temporaryFolder("prosec-subfolder-");
  src = join(project, "src");
  mkdirSync(join(project, ".prose/runs", RUN_ID), { recursive: true });
  mkdirSync(join(project, "tests/hello.golden"), { recursive: true });
  mkdirSync(src);
  writeFileSync(join(src, "hello.prose"), 'output answer = session "Hello"\n');
});

const noDatabase = { DBOS_SYSTEM_DATABASE_URL: "", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" };

describe("commands given from a project's subfolder", () => {
  it.each([
    [["runs", "show", RUN_ID], `runs show ${RUN_ID}: there is no such run (prosec runs lists them)`],
    [["answer", RUN_ID, "topic=x"], `there is no run ${RUN_ID} in .prose/runs here`],
    [["cancel", RUN_ID], `there is no run ${RUN_ID} in .prose/runs here`],
    [["run", "hello.prose", "--resume", RUN_ID], `--resume ${RUN_ID}: there is no such run in .prose/runs`],
    [["test", "--save", RUN_ID, "hello"], `--save ${RUN_ID}: there is no such run in .prose/runs`],
  ])("prosec %j names the folder above that holds the run", (args, says) => {
    const result = prosec(args, src, noDatabase);
    expect(result.status, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toContain(says);
    expect(result.stderr).toContain(`; ${join(project, ".prose/runs")} has it: give the command from ${project}\n`);
  });

  it("prosec test names the tests folder above, and says to test from there", () => {
    const result = prosec(["test"], src);
    expect(result.status, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      `prosec: tests: no such folder here; ${join(project, "tests")} is one: run prosec test from ${project}\n`,
    );
  });

  it("a run no folder above holds is only not found", () => {
    const result = prosec(["runs", "show", "20261129-101500-ffffff"], src);
    expect(result.status, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      "prosec: runs show 20261129-101500-ffffff: there is no such run (prosec runs lists them)\n",
    );
  });
});
