/**
 * `prosec eval --resume ID` reads back `.prose/evals/<id>/eval.json`, whose eval id and run ids name
 * the folders the eval writes: its results, and each case's run. Whoever could write that file (an
 * archive of a project, a shared folder) must not make the eval write outside `.prose/`: an id that is
 * a path (`../../../x`) is refused before anything runs. Slow: the built CLI, five processes.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const EVAL = ["eval", "evals/research.eval.prose", "--scripted", "evals/research.script.json"];

describe("a tampered eval.json", () => {
  // The project two folders down, so that ../../../ from .prose/runs/ lands in a folder the test owns.
  const outside = temporaryFolder("prosec-eval-manifest-");
  const cwd = join(outside, "a", "project");
  let evalId: string;
  let manifest: string;
  beforeAll(() => {
    mkdirSync(cwd, { recursive: true });
    expect(prosec(["init"], cwd).status).toBe(0);
    expect(prosec([...EVAL, "--cases", "evals/research.cases.jsonl"], cwd).status).toBe(0);
    [evalId] = readdirSync(join(cwd, ".prose", "evals")) as [string];
    manifest = join(cwd, ".prose", "evals", evalId, "eval.json");
  });

  it.each([
    ["a run id", (json: { runs: { runId: string }[] }) => (json.runs[0]!.runId = "../../../../escaped")],
    ["its eval id", (json: { evalId: string }) => (json.evalId = "../../../../escaped")],
  ])("whose %s climbs out of .prose/ makes --resume write nothing outside", (_, tamper) => {
    const original = readFileSync(manifest, "utf8");
    try {
      const json = JSON.parse(original) as { evalId: string; runs: { runId: string }[] };
      tamper(json);
      writeFileSync(manifest, JSON.stringify(json));
      const resumed = prosec([...EVAL, "--resume", evalId], cwd);
      expect(resumed.status).toBe(EXIT.usage);
      expect(resumed.stderr).toContain('names "../../../../escaped" as an eval or run id, which is not one');
      expect(existsSync(join(outside, "escaped"))).toBe(false);
    } finally {
      writeFileSync(manifest, original);
    }
  });

  it("naming a run folder whose eval.json is a link has the tag replace the link, not write through it", () => {
    const original = readFileSync(manifest, "utf8");
    const victim = join(outside, "victim.txt");
    try {
      writeFileSync(victim, "mine\n");
      mkdirSync(join(cwd, ".prose", "runs", "planted"));
      symlinkSync(victim, join(cwd, ".prose", "runs", "planted", "eval.json"));
      const json = JSON.parse(original) as { runs: { runId: string }[] };
      json.runs[0]!.runId = "planted";
      writeFileSync(manifest, JSON.stringify(json));
      rmSync(join(cwd, ".prose", "evals", evalId, "results.jsonl"), { force: true });
      prosec([...EVAL, "--resume", evalId], cwd);
      expect(readFileSync(victim, "utf8")).toBe("mine\n");
      expect(lstatSync(join(cwd, ".prose", "runs", "planted", "eval.json")).isSymbolicLink()).toBe(false);
    } finally {
      writeFileSync(manifest, original);
    }
  });
});
