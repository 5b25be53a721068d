/**
 * A golden test of a program with typed results (`returns:`): the recorded run keeps the structured
 * answers in its journal, `prosec test` replays them as the same values with no model, and the outputs
 * compare equal; a re-asked answer's problems stay in the recording.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/run/load-program.js";
import { saveGolden, testGolden } from "../../src/golden/run-golden.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `let risks = session "List the risks"
  returns: [{ title: string, severity: "low" | "high" }]
  permissions:
    read: []
    write: []
for risk in risks:
  session "Mitigate {risk.title}"
output risks = risks
output top = risks[0].title
`;

const RUN_ID = "20260101-120000-typed1";
let server: FakeServer;
let project: string;
let outputs: Record<string, unknown>;

beforeAll(async () => {
  requireBuiltRuntime();
  const model = deterministicModel();
  let wrongOnce = true;
  server = await startFakeAnthropic({
    respond: (request) => {
      // The first typed answer has a key the type does not declare: asked again, then right.
      if (wrongOnce && request.body?.tool_choice !== undefined) {
        wrongOnce = false;
        return reply.toolUse([{ name: "answer", input: { answer: [{ title: "x", severity: "low", owner: "ops" }] } }]);
      }
      return model(request);
    },
  });
  project = temporaryFolder("prosec-golden-typed-");
  writeFileSync(join(project, "risks.prose"), PROGRAM);
  const loaded = await loadProgram("risks.prose", { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  outputs = (await loaded.module.run(
    {},
    {
      runDir: join(project, ".prose/runs", RUN_ID),
      runId: RUN_ID,
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      maxRetries: 0,
      cwd: project,
    },
  )) as Record<string, unknown>;
});

afterAll(async () => {
  await server.close();
  rmSync(project, { recursive: true, force: true });
});

describe("a golden test of typed results", () => {
  it("records the structured answer, and the re-ask's problem, in the journal", () => {
    expect(outputs["risks"]).toEqual([
      { title: "title", severity: "low" },
      { title: "title", severity: "low" },
    ]);
    expect(outputs["top"]).toBe("title");
    const first = JSON.parse(
      readFileSync(join(project, ".prose/runs", RUN_ID, "journal.jsonl"), "utf8").split("\n")[0]!,
    );
    expect(first.value).toEqual(outputs["risks"]);
    expect(first.attempts).toBe(2);
    expect(first.problems).toEqual([
      expect.stringContaining('[0] has the key "owner", which the type does not declare'),
    ]);
  });

  it("replays with no model: the same values, the outputs equal", async () => {
    const saved = await saveGolden(RUN_ID, "risks", { cwd: project, strict: false });
    expect(saved.passed).toBe(true);
    const requests = server.requests.length;
    const replayed = await testGolden(join(project, "tests/risks.golden"), { cwd: project, strict: false });
    expect(replayed.failures).toEqual([]);
    expect(replayed.passed).toBe(true);
    expect(server.requests.length).toBe(requests);
  });
});
