/**
 * Golden tests of programs with races: the recorded run cancelled the losing branches while their
 * requests were in flight, so the journal has no record of them. A replay starts every branch again,
 * and a loser's step must be cancelled as it was, not reported as missing from the recording.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProgram } from "../../src/run/load-program.js";
import { saveGolden, testGolden } from "../../src/golden/run-golden.js";
import { askedText, reply, startFakeAnthropic, type FakeServer, type FakeRequest } from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const FIXTURE = join(import.meta.dirname, "../fixtures/programs/races.prose");
const RUN_ID = "20260101-120000-aaaaaa";

let server: FakeServer;
let project: string;
const options = () => ({ cwd: project, strict: false });

const firstLine = (request: FakeRequest): string => askedText(request).split("\n")[0]!;
const isLoser = (asked: string): boolean => asked.includes("slowly") || asked.includes("check C");

/** The losers ("slowly", "C") answer only once aborted: the race is decided without them. */
function respond(request: FakeRequest) {
  const asked = firstLine(request);
  return isLoser(asked) ? reply.hang() : reply.text(`answer to: ${asked}`);
}

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({ respond });
  project = temporaryFolder("prosec-golden-races-");
  copyFileSync(FIXTURE, join(project, "races.prose"));
  const loaded = await loadProgram("races.prose", { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  await loaded.module.run(
    { topic: "tides" },
    {
      runDir: join(project, ".prose/runs", RUN_ID),
      runId: RUN_ID,
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      maxRetries: 0,
      cwd: project,
    },
  );
});

afterAll(async () => {
  await server?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe("golden tests of races", () => {
  it("saves and replays a run whose races cancelled their losers, with no step missing", async () => {
    const before = server.requests.length;
    const saved = await saveGolden(RUN_ID, "races", options());
    expect(saved.failures).toEqual([]);
    expect(saved).toMatchObject({ name: "tests/races.golden", passed: true });
    const replayed = await testGolden(join(project, "tests/races.golden"), options());
    expect(replayed.failures).toEqual([]);
    expect(replayed.passed).toBe(true);
    // Only a loser's request, sent by the recorded run just before it was cancelled, may reach the
    // server this late (on a loaded machine); the save and the replay ask it nothing.
    expect(
      server.requests
        .slice(before)
        .map(firstLine)
        .filter((asked) => !isLoser(asked)),
    ).toEqual([]);
  });

  it("still reports a step the recording lacks in a race's winning branch", async () => {
    const edited = (await import("node:fs"))
      .readFileSync(FIXTURE, "utf8")
      .replace(
        '    session "Answer quickly about {topic}"\n',
        '    session "Answer quickly about {topic}"\n    session "Double-check the quick answer"\n',
      );
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(project, "races.prose"), edited);
    try {
      const result = await testGolden(join(project, "tests/races.golden"), options());
      expect(result.passed).toBe(false);
      expect(result.failures).toEqual([
        expect.objectContaining({
          kind: "missing-step",
          message: "races.prose:7:5: the session is not in the recording",
        }),
      ]);
    } finally {
      copyFileSync(FIXTURE, join(project, "races.prose"));
    }
  });
});
