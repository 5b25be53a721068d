/**
 * Golden tests in process: a program runs once against the fake Messages API with a run folder, and
 * is then replayed from that folder (and from a saved copy) with no model: unchanged, with comments
 * and blank lines added, with its version checks out of date, with a prompt edited, with a step
 * added (missing, then answered by hand, then folded in by --update), and from a journal written
 * before anchors existed.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STEP_SCHEME } from "../../runtime/index.js";
import type { StepAddress } from "../../runtime/types.js";
import { loadProgram, type ProgramModule } from "../../src/run/load-program.js";
import { OfflineModel, ReplayDurability } from "../../src/golden/replay.js";
import { saveGolden, testGolden, type GoldenResult } from "../../src/golden/run-golden.js";
import {
  askedText,
  reply,
  startFakeAnthropic,
  lastUserText,
  type FakeServer,
  type FakeRequest,
  type FakeReply,
} from "../support/fake-anthropic.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `input topic: "The topic"

parallel:
  pros = session "List the pros of {topic}"
  cons = session "List the cons of {topic}"

let draft = session "Write about {topic}"
  context: { pros, cons }

loop until **the draft is ready** (max: 3):
  draft = session "Revise the draft"
    context: draft

choice **how risky {topic} is**:
  option "High":
    let verdict = session "Escalate {topic}"
  option "Low":
    let verdict = session "Note {topic} for later"

output report = draft
output verdict = verdict
`;

function respond(request: FakeRequest): FakeReply {
  // The task is the last block: the context comes before it.
  const prompt = askedText(request);
  if (request.body?.tool_choice !== undefined) {
    const isChoice = JSON.stringify(request.body.tools).includes("enum");
    return reply.toolUse([
      {
        name: "answer",
        input: isChoice
          ? { answer: "Low", reason: "small" }
          : { answer: lastUserText(request).includes("REVISED"), reason: "checked" },
      },
    ]);
  }
  if (prompt.startsWith("Revise the draft")) return reply.text("REVISED draft");
  return reply.text(`answer to: ${prompt.split("\n")[0]}`);
}

const OUTPUTS = { report: "REVISED draft", verdict: "answer to: Note tides for later" };

let server: FakeServer;
let project: string;
let runDir: string;
const options = () => ({ cwd: project, strict: false });

async function compile(source: string): Promise<ProgramModule> {
  writeFileSync(join(project, "report.prose"), source);
  const loaded = await loadProgram("report.prose", { cwd: project });
  if (loaded.module === undefined) throw new Error(JSON.stringify(loaded.files.map((file) => file.diagnostics)));
  return loaded.module;
}

/** Runs `test` with the program's text set to `source`, then puts the original back. */
async function withProgram(source: string, test: () => Promise<void>): Promise<void> {
  writeFileSync(join(project, "report.prose"), source);
  try {
    await test();
  } finally {
    writeFileSync(join(project, "report.prose"), PROGRAM);
  }
}

/** The journal's records, without their lines' checksums (a test rewriting them writes records as an older prosec did). */
function journal(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, "journal.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const { sum: _sum, ...record } = JSON.parse(line) as Record<string, unknown>;
      return record;
    });
}

function copyGolden(from: string, name: string): string {
  const dir = join(project, "tests", name);
  mkdirSync(dir, { recursive: true });
  for (const file of ["run.json", "journal.jsonl", "expected.json"])
    writeFileSync(join(dir, file), readFileSync(join(from, file)));
  return dir;
}

const saved = () => join(project, "tests/report.golden");

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({ respond });
  project = temporaryFolder("prosec-golden-");
  const module = await compile(PROGRAM);
  runDir = join(project, ".prose/runs/20260101-120000-abcdef");
  const outputs = await module.run(
    { topic: "tides" },
    { runDir, runId: "20260101-120000-abcdef", apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 0, cwd: project },
  );
  expect(outputs).toEqual(OUTPUTS);
});

afterAll(async () => {
  await server.close();
  rmSync(project, { recursive: true, force: true });
});

describe("golden tests", () => {
  it("records an anchor and a request with every step of a run", () => {
    const records = journal(runDir);
    expect(records).toHaveLength(8);
    for (const record of records) {
      expect(record["anchor"]).toMatch(/^(\/[a-z]+:[\w-]*@[0-9a-f]{8}#\d+(\/b\d+)?)+$/);
      expect(record["request"]).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(records.find((record) => record["key"] === "/parallel@3:1#0/b1/session@5:10#0")?.["anchor"]).toMatch(
      /^\/parallel:@[0-9a-f]{8}#0\/b1\/session:cons@[0-9a-f]{8}#0$/,
    );
  });

  it("replays a run folder as it is, against its binding files, without a single request", async () => {
    const before = server.requests.length;
    const result = await testGolden(runDir, options());
    expect(result).toMatchObject({
      name: ".prose/runs/20260101-120000-abcdef",
      program: "report.prose",
      passed: true,
      failures: [],
      changed: [],
      unusedSteps: 0,
      written: [],
    });
    expect(server.requests.length).toBe(before);
  });

  it("saves a run as tests/NAME.golden with the replay's outputs, and replays that", async () => {
    const result = await saveGolden("20260101-120000-abcdef", "report", options());
    expect(result).toMatchObject({ name: "tests/report.golden", passed: true });
    expect(result.written).toEqual([
      "tests/report.golden/run.json",
      "tests/report.golden/journal.jsonl",
      "tests/report.golden/expected.json",
    ]);
    expect(JSON.parse(readFileSync(join(saved(), "expected.json"), "utf8"))).toEqual({
      program: "../../report.prose",
      outputs: OUTPUTS,
    });
    expect(journal(saved()).map((record) => record["key"])).toEqual(
      journal(runDir)
        .map((record) => record["key"])
        .sort((a, b) => String(a).localeCompare(String(b), "en", { numeric: true })),
    );
    expect((await testGolden(saved(), options())).passed).toBe(true);
    await expect(saveGolden("20260101-120000-abcdef", "report", options())).rejects.toThrow(
      /tests\/report\.golden already exists/,
    );
    await expect(saveGolden("20260101-120000-000000", "other", options())).rejects.toThrow(/no such run/);
  });

  it("still passes with comments and blank lines added above and inside the steps", async () => {
    const edited = `# A report on a topic.\n\n${PROGRAM}`
      .replace("parallel:\n", "# Both sides at once.\n\nparallel:\n  # pros first\n\n")
      .replace("loop until", "# Revise until ready.\nloop until");
    await withProgram(edited, async () => {
      const result = await testGolden(saved(), options());
      expect(result.failures).toEqual([]);
      expect(result).toMatchObject({ passed: true, changed: [], unusedSteps: 0 });
    });
  });

  it("ignores the version checks that guard --resume", async () => {
    const dir = copyGolden(saved(), "versions.golden");
    const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ ...manifest, compilerVersion: "0.0.1", sourceHash: "f".repeat(64) }),
    );
    expect((await testGolden(dir, options())).passed).toBe(true);
    const module = await compile(PROGRAM);
    await expect(module.run({}, { runDir, resume: true, cwd: project })).resolves.toEqual(OUTPUTS); // the same run resumes...
    writeFileSync(
      join(runDir, "run.json"),
      JSON.stringify({
        ...JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")),
        compilerVersion: "0.0.1",
        stepScheme: STEP_SCHEME + 1,
      }),
    );
    await expect(module.run({}, { runDir, resume: true, cwd: project })).rejects.toThrow(
      /recorded by prosec 0\.0\.1 with step scheme/,
    ); // ...which --resume refuses
    rmSync(dir, { recursive: true });
  });

  it("reports a step whose request changed, and replays its recorded answer", async () => {
    await withProgram(PROGRAM.replace('"Revise the draft"', '"Revise the draft, shorter"'), async () => {
      const result = await testGolden(saved(), options());
      expect(result.passed).toBe(true);
      expect(
        result.changed.map((step) => `${step.kind} ${step.binding} ${step.at.line}:${step.at.column} ${step.asked}`),
      ).toEqual(["session draft 11:11 Revise the draft, shorter\n(context: draft)"]);
    });
  });

  it("replays a golden file written before step scheme 4 (`requestHash`), and still reports a step whose request changed", async () => {
    const dir = copyGolden(saved(), "scheme-3.golden");
    const records = journal(dir).map(({ request, ...record }) => ({ ...record, requestHash: request }));
    expect(records.every((record) => typeof record["requestHash"] === "string")).toBe(true);
    writeFileSync(join(dir, "journal.jsonl"), records.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const manifest = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(dir, "run.json"), JSON.stringify({ ...manifest, stepScheme: 3 }));
    expect(await testGolden(dir, options())).toMatchObject({ passed: true, changed: [] });
    await withProgram(PROGRAM.replace('"Revise the draft"', '"Revise the draft, shorter"'), async () => {
      const result = await testGolden(dir, options());
      expect(result.passed).toBe(true);
      expect(result.changed.map((step) => `${step.kind} ${step.binding}`)).toEqual(["session draft"]);
    });
    rmSync(dir, { recursive: true });
  });

  it("fails on a step the recording lacks, writes it as a pending answer, uses the answer, and folds it in with --update", async () => {
    const dir = copyGolden(saved(), "added.golden");
    const added = PROGRAM.replace(
      "output report",
      'let title = session "Name the report on {topic}"\n\noutput title = title\noutput report',
    );
    await withProgram(added, async () => {
      const missing = await testGolden(dir, { ...options(), writePending: true });
      expect(missing.passed).toBe(false);
      expect(missing.failures).toEqual([
        expect.objectContaining({
          kind: "missing-step",
          message: "report.prose:20:13: the session title is not in the recording",
        }),
      ]);
      expect(missing.failures[0]!.step?.asked).toBe("Name the report on tides");
      expect(missing.written).toEqual(["tests/added.golden/answers.json"]);
      const pending = JSON.parse(readFileSync(join(dir, "answers.json"), "utf8")) as {
        answers: Record<string, unknown>[];
      };
      expect(pending.answers).toEqual([
        expect.objectContaining({
          step: "report.prose:20:13 session (title)",
          kind: "session",
          key: "/session@20:13#0",
          asked: "Name the report on tides",
          answer: null,
        }),
      ]);

      // Unanswered, it is still missing; answered, the replay goes on and the new output is not expected yet.
      expect((await testGolden(dir, options())).failures.map((failure) => failure.kind)).toEqual(["missing-step"]);
      writeFileSync(
        join(dir, "answers.json"),
        JSON.stringify({ answers: [{ ...pending.answers[0], answer: "Tides, briefly" }] }),
      );
      const unexpected = await testGolden(dir, options());
      expect(unexpected.failures).toEqual([
        expect.objectContaining({
          kind: "output",
          output: "title",
          actual: "Tides, briefly",
          message: 'output "title" is not expected',
        }),
      ]);

      const before = server.requests.length;
      const updated = await testGolden(dir, { ...options(), update: true });
      expect(updated).toMatchObject({
        passed: true,
        written: [
          "tests/added.golden/run.json",
          "tests/added.golden/journal.jsonl",
          "tests/added.golden/expected.json",
        ],
      });
      expect(server.requests.length).toBe(before);
      expect(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")).outputs).toEqual({
        title: "Tides, briefly",
        ...OUTPUTS,
      });
      expect(journal(dir).find((record) => record["key"] === "/session@20:13#0")).toMatchObject({
        kind: "session",
        value: "Tides, briefly",
        anchor: expect.stringMatching(/^\/session:title@/),
      });
      expect(() => readFileSync(join(dir, "answers.json"))).toThrow();
      expect((await testGolden(dir, options())).passed).toBe(true);
    });
    // Against the program without the step, the updated test now fails: an output is gone.
    expect((await testGolden(dir, options())).failures).toEqual([
      expect.objectContaining({ kind: "output", output: "title", message: 'output "title" is missing' }),
    ]);
  });

  it("refuses an answer that cannot be the step's (a judgment answered with text)", async () => {
    const dir = copyGolden(saved(), "bad-answer.golden");
    const records = journal(dir).filter(
      (record) => record["kind"] !== "judge" || !String(record["key"]).endsWith("#1"),
    );
    writeFileSync(join(dir, "journal.jsonl"), records.map((record) => `${JSON.stringify(record)}\n`).join(""));
    writeFileSync(
      join(dir, "answers.json"),
      JSON.stringify({ answers: [{ kind: "judge", key: "/judge@10:12#1", answer: "maybe" }] }),
    );
    const result = await testGolden(dir, options());
    expect(result.failures).toEqual([
      expect.objectContaining({
        kind: "answer",
        message:
          "report.prose:10:12: the answer to the judgment in answers.json cannot be used: a judgment's answer is true or false",
      }),
    ]);
  });

  it("replays a journal written before anchors by call site, which only survives edits that keep the lines", async () => {
    const dir = copyGolden(saved(), "old.golden");
    const old = journal(dir).map(({ anchor: _anchor, request: _hash, ...record }) => record);
    writeFileSync(join(dir, "journal.jsonl"), old.map((record) => `${JSON.stringify(record)}\n`).join(""));
    const result: GoldenResult = await testGolden(dir, options());
    expect(result).toMatchObject({ passed: true, changed: [] });
    await withProgram(`# a new first line\n${PROGRAM}`, async () => {
      expect((await testGolden(dir, options())).failures[0]).toMatchObject({ kind: "missing-step" });
    });
  });
});

describe("replay never reaches the model", () => {
  it("answers steps only from the recording: the step itself never runs", async () => {
    const durability = new ReplayDurability([], []);
    const execute = () => Promise.reject(new Error("executed"));
    const address: StepAddress = {
      site: "/session@1:1#0",
      anchor: "/session:x@00000000#0",
      structure: "/session@s0#0",
      fingerprint: "fingerprint",
      request: "request",
      kind: "session",
      at: { line: 1, column: 1 },
      program: { name: "p", source: "p.prose" },
      ask: { text: "Do it", details: () => ({}) },
    };
    await expect(durability.step(address, execute)).rejects.toThrow("the recording has no answer for this step");
    expect(durability.missing.map((step) => step.asked)).toEqual(["Do it"]);
  });

  it("gives the run a client whose every request fails and is counted", async () => {
    const offline = new OfflineModel();
    const module = await compile(PROGRAM);
    await expect(module.run({ topic: "x" }, { client: offline.client, cwd: project })).rejects.toThrow(
      /Connection error|replays without the network/,
    );
    expect(offline.attempts.length).toBeGreaterThanOrEqual(1);
    // A session's first call may be preceded by the look-up of its model's output limit (output-limits.ts).
    expect(offline.attempts.filter((url) => !url.includes("/v1/models/"))[0]).toMatch(/\/v1\/messages$/);
  });
});
