/**
 * A golden test is committed, so a pull request can add one: its `expected.json` or `run.json` must
 * not make `prosec test` compile a file outside the project, whose lines a code frame would print
 * into a CI log (a token in `.env`, `/proc/self/environ`). It replays only a `.prose` file inside the
 * working directory, links resolved.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testGolden } from "../../src/golden/run-golden.js";
import { temporaryFolder } from "../support/temp.js";
import { runManifest } from "../support/run-manifest.js";

const SECRET = "sk-live-not-for-logs-0123456789";

/** A project with a golden test naming `program` (in expected.json, or as run.json's source), and a secret beside it. */
function project(names: (outside: string) => { expected?: string; source?: string }): {
  cwd: string;
  golden: string;
  outside: string;
} {
  const root = temporaryFolder("prosec-golden-path-");
  const outside = join(root, "secrets");
  const program = names(outside);
  mkdirSync(outside);
  writeFileSync(join(outside, "token.env"), `API_TOKEN=${SECRET}\n`);
  writeFileSync(join(outside, "token.prose"), `API_TOKEN=${SECRET}\n`);
  const cwd = join(root, "project");
  const golden = join(cwd, "tests", "x.golden");
  mkdirSync(golden, { recursive: true });
  writeFileSync(join(golden, "run.json"), runManifest({ source: program.source ?? "p.prose" }));
  writeFileSync(join(golden, "journal.jsonl"), "");
  if (program.expected !== undefined)
    writeFileSync(join(golden, "expected.json"), JSON.stringify({ program: program.expected, outputs: {} }));
  return { cwd, golden, outside };
}

describe("the program a golden test replays", () => {
  it.each([
    ["expected.json names a file outside the project", () => ({ expected: "../../../secrets/token.env" })],
    ["expected.json names a .prose file outside the project", () => ({ expected: "../../../secrets/token.prose" })],
    ["run.json's source is an absolute path outside", (outside: string) => ({ source: join(outside, "token.prose") })],
  ])("is refused, its text never shown, when %s", async (_, names) => {
    const { cwd, golden } = project(names);
    const result = await testGolden(golden, { cwd, strict: false });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.passed).toBe(false);
    expect(result.failures[0]?.message).toMatch(/^will not replay (expected|run)\.json names /);
  });

  it("is refused when a link inside the project leads outside it", async () => {
    const { cwd, golden, outside } = project(() => ({ expected: "program.prose" }));
    symlinkSync(join(outside, "token.prose"), join(golden, "program.prose"));
    const result = await testGolden(golden, { cwd, strict: false });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.failures[0]?.message).toMatch(/^will not replay /);
  });

  it("is refused when it is no .prose file, even inside the project", async () => {
    const { cwd, golden } = project(() => ({ expected: "../../.env" }));
    writeFileSync(join(cwd, ".env"), `API_TOKEN=${SECRET}\n`);
    const result = await testGolden(golden, { cwd, strict: false });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.failures[0]?.message).toMatch(/^will not replay /);
  });

  it("is replayed when it is a .prose file inside the project", async () => {
    const { cwd, golden } = project(() => ({ expected: "../../p.prose" }));
    writeFileSync(join(cwd, "p.prose"), 'output x = session "Hi"\n');
    const result = await testGolden(golden, { cwd, strict: false });
    // The recording is empty: the replay reaches the session and finds it missing.
    expect(result.failures.map((failure) => failure.kind)).toContain("missing-step");
  });
});
