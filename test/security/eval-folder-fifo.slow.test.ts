/**
 * An eval folder may come from someone else (an archive, a shared folder): a FIFO as its `eval.json`
 * or `results.jsonl` once hung `prosec eval --resume` for ever (a plain read waits for a writer). Now
 * the command ends by itself, saying what the file is. Each child is given a timeout; the test asserts
 * it ended on its own (an exit status, no signal). A FIFO in the user's `--cases` folder is refused
 * the same way. Slow: the built CLI, five processes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { bin, prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const EVAL = ["eval", "evals/research.eval.prose", "--scripted", "evals/research.script.json"];

/** The CLI, killed after 30 s: a hang shows as a signal, not as a status. */
function bounded(args: readonly string[], cwd: string) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
}

describe("a FIFO in an eval folder", () => {
  const cwd = join(temporaryFolder("prosec-eval-fifo-"), "project");
  let folder: string;
  let evalId: string;
  beforeAll(() => {
    mkdirSync(cwd, { recursive: true });
    expect(prosec(["init"], cwd).status).toBe(0);
    expect(prosec([...EVAL, "--cases", "evals/research.cases.jsonl"], cwd).status).toBe(0);
    [evalId] = readdirSync(join(cwd, ".prose", "evals")) as [string];
    folder = join(cwd, ".prose", "evals", evalId);
  });

  it.each(["results.jsonl", "eval.json"])("as its %s ends --resume by itself, saying what it is", (name) => {
    rmSync(join(folder, name));
    execFileSync("mkfifo", [join(folder, name)]);
    const resumed = bounded([...EVAL, "--resume", evalId], cwd);
    expect(resumed.signal).toBeNull();
    expect(resumed.status).toBe(EXIT.usage);
    expect(resumed.stderr).toContain(`${name} is a FIFO (named pipe), not a regular file`);
    rmSync(join(folder, name));
    if (name === "results.jsonl") writeFileSync(join(folder, name), "");
  });

  it("in a --cases folder, or a link to a device there, is refused before anything runs", () => {
    const cases = join(cwd, "cases");
    mkdirSync(cases);
    writeFileSync(join(cases, "a.json"), '{"inputs":{}}');
    execFileSync("mkfifo", [join(cases, "b.json")]);
    const fifo = bounded([...EVAL, "--cases", "cases"], cwd);
    expect(fifo.signal).toBeNull();
    expect(fifo.status).toBe(EXIT.usage);
    expect(fifo.stderr).toContain("--cases cases: b.json is a FIFO (named pipe), not a file of a case");
    rmSync(join(cases, "b.json"));
    symlinkSync("/dev/zero", join(cases, "b.json"));
    const device = bounded([...EVAL, "--cases", "cases"], cwd);
    expect(device.signal).toBeNull();
    expect(device.stderr).toContain("b.json is a device");
  });
});
