/**
 * Outputs named as what every object inherits (`__proto__`, `constructor`) in a golden test replayed
 * against a run folder's binding files: each is compared as any output is, never lost to the
 * prototype nor read off it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGolden } from "../../src/golden/run-golden.js";
import { loadProgram } from "../../src/run/load-program.js";
import { askedText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `output __proto__ = session "Name the first thing"
output constructor = session "Name the second thing"
`;

let server: FakeServer;
let project: string;
const runId = "20260101-120000-0a0b0c";

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({ respond: (request) => reply.text(`answer to: ${askedText(request)}`) });
  project = temporaryFolder("prosec-golden-proto-");
  writeFileSync(join(project, "names.prose"), PROGRAM);
  const loaded = await loadProgram("names.prose", { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  const outputs = await loaded.module.run(
    {},
    {
      runDir: join(project, ".prose/runs", runId),
      runId,
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      maxRetries: 0,
      cwd: project,
    },
  );
  expect(Object.entries(outputs)).toEqual([
    ["__proto__", "answer to: Name the first thing"],
    ["constructor", "answer to: Name the second thing"],
  ]);
});

afterAll(async () => {
  await server.close();
});

describe("a golden test of outputs named __proto__ and constructor", () => {
  it("passes against the run folder's binding files", async () => {
    const runDir = join(project, ".prose/runs", runId);
    expect(existsSync(join(runDir, "bindings", "__proto__.md"))).toBe(true);
    const result = await testGolden(runDir, { cwd: project, strict: false });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it("fails when the expected binding file says otherwise, naming the output", async () => {
    const runDir = join(project, ".prose/runs", runId);
    const path = join(runDir, "bindings", "__proto__.md");
    const original = readFileSync(path, "utf8");
    writeFileSync(path, original.replace("answer to: Name the first thing", "something else"));
    try {
      const result = await testGolden(runDir, { cwd: project, strict: false });
      expect(result.failures).toEqual([
        expect.objectContaining({
          kind: "output",
          output: "__proto__",
          expected: "something else",
          actual: "answer to: Name the first thing",
        }),
      ]);
    } finally {
      writeFileSync(path, original);
    }
  });
});
