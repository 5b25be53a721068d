/**
 * Durable runs through the library API (`run(inputs, { runDir, resume })`): the `.prose/runs/` folder
 * of state/filesystem.md, replay of finished steps on resume, and the refusals that keep a resumed run
 * honest. Generated modules run on the runtime's source against the fake Messages API.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { ProseError, RunStateError, STEP_SCHEME, type RunOptions, type Value } from "../../runtime/index.js";
import { deterministicModel, identity, identityIn } from "../support/deterministic-model.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

interface Module {
  run(inputs: Record<string, Value>, options?: RunOptions): Promise<Record<string, Value>>;
}

const PROGRAM = `input topic: "Topic"

agent scribe:
  persist: true
  prompt: "You keep notes"

const title = "Report on {topic}"
parallel:
  a = session "Research {topic}: history"
  b = session "Research {topic}: markets"

let draft = session "Outline {title}"
  context: { a, b }

loop until **the draft is final** (max: 4) as round:
  draft = session "Revise the draft, round {round}"
    context: draft

block polish(part):
  let polished = session "Polish the {part}"

do polish("intro")
session "Log the run"
resume: scribe
  prompt: "Note what happened"
output report = session "Assemble the report"
  context: draft
`;

const finalAfterRoundOne = (question: string): boolean => question.includes("round 1");

let loaded = 0;
async function load(
  source: string,
  name = `durable${++loaded}`,
  folder = temporaryFolder("prosec-durable-modules-"),
): Promise<Module> {
  const { code, diagnostics } = lowerSource(source, `${name}.prose`, {
    resolveImport: () => ({ inputs: ["topic"], outputs: ["summary"] }),
  });
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const path = join(folder, `${name}.prose.ts`);
  writeFileSync(path, code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function model(failAt?: number): Promise<FakeServer> {
  const answer = deterministicModel(finalAfterRoundOne);
  const server = await startFakeAnthropic({
    respond: (request) =>
      request.index === failAt ? reply.error(400, { message: "scripted failure" }) : answer(request),
  });
  servers.push(server);
  return server;
}

function options(server: FakeServer, cwd: string, extra: RunOptions = {}): RunOptions {
  return { apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 0, cwd, ...extra };
}

function journal(runDir: string): Array<{ key: string; value: Value; reason?: string }> {
  const lines = readFileSync(join(runDir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");
  return lines.map((line) => JSON.parse(line) as { key: string; value: Value; reason?: string });
}

/** The requests the journal's steps answered (each answer starts with its request's identity). */
function finishedSteps(runDir: string): string[] {
  return journal(runDir).map(
    (record) => identityIn(record.value) ?? identityIn(record.reason) ?? `no identity in ${record.key}`,
  );
}

describe("a durable run's folder", () => {
  it("holds the program, its manifest, the journal, state.md and one binding file per binding, as filesystem.md lays them out", async () => {
    const module = await load(PROGRAM);
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "20260115-143052-a7b3c9");
    const outputs = await module.run(
      { topic: "tides" },
      options(await model(), cwd, { runDir, runId: "20260115-143052-a7b3c9" }),
    );

    expect(readFileSync(join(runDir, "program.prose"), "utf8")).toBe(PROGRAM);
    const manifest = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      runId: "20260115-143052-a7b3c9",
      inputs: { topic: "tides" },
      compilerVersion: expect.any(String) as string,
      stepScheme: STEP_SCHEME,
    });
    expect(readdirSync(join(runDir, "bindings")).sort()).toEqual([
      "a.md",
      "anon_001.md",
      "anon_002.md",
      "b.md",
      "draft.md",
      "polished__1.md",
      "report.md",
      "title.md",
      "topic.md",
    ]);

    expect(readFileSync(join(runDir, "bindings", "title.md"), "utf8")).toBe(
      [
        "# title",
        "",
        "kind: const",
        "",
        "source:",
        "",
        "```prose",
        'const title = "Report on {topic}"',
        "```",
        "",
        "---",
        "",
        "Report on tides",
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(runDir, "bindings", "topic.md"), "utf8")).toMatch(
      /^# topic\n\nkind: input\n\nsource:\n\n```prose\ninput topic: "Topic"\n```\n\n---\n\ntides\n$/,
    );
    const draft = readFileSync(join(runDir, "bindings", "draft.md"), "utf8");
    expect(draft).toMatch(
      /^# draft\n\nkind: let\n\nsource:\n\n```prose\ndraft = session "Revise the draft, round \{round\}"\n {2}context: draft\n```\n\n---\n\n\[[0-9a-f]{12}\] re: Revise the draft, round 1\n$/,
    );
    expect(readFileSync(join(runDir, "bindings", "polished__1.md"), "utf8")).toMatch(
      /^# polished\n\nkind: let\nexecution_id: 1\n\nsource:\n\n```prose\nlet polished = session "Polish the \{part\}"\n```\n\n---\n\n\[[0-9a-f]{12}\] re: .+\n$/,
    );
    expect(readFileSync(join(runDir, "bindings", "report.md"), "utf8")).toContain(
      `kind: output\n\nsource:\n\n\`\`\`prose\noutput report = session "Assemble the report"\n  context: draft\n\`\`\`\n\n---\n\n${outputs["report"] as string}\n`,
    );
    expect(readFileSync(join(runDir, "bindings", "anon_001.md"), "utf8")).toMatch(
      /^# anon_001\n\nkind: anonymous\n\nsource:\n\n```prose\nsession "Log the run"\n```/,
    );
    expect(existsSync(join(runDir, "agents", "scribe", "memory.md"))).toBe(true);

    const state = readFileSync(join(runDir, "state.md"), "utf8");
    expect(state).toMatch(
      /^# Execution State\n\nrun: 20260115-143052-a7b3c9\nprogram: durable\d+\.prose\nstatus: complete\nstarted: \d{4}-\d\d-\d\dT[\d:.]+Z\nupdated: \d{4}-\d\d-\d\dT[\d:.]+Z\n\n## Execution Trace\n\n```prose\n/,
    );
    expect(state).toMatch(/\n {2}a = session "Research \{topic\}: history" +# --> bindings\/a\.md\n/);
    expect(state).toMatch(/\nloop until \*\*the draft is final\*\* \(max: 4\) as round: +# \(complete\)\n/);
    expect(state).toContain("| polished | let | bindings/polished__1.md | 1 |");
    expect(state).toContain("| report | output | bindings/report.md | (root) |");
    expect(state).toContain("| scribe | execution | agents/scribe |");
    expect(state).not.toContain("EXECUTING");

    const keys = journal(runDir).map((record) => record.key);
    // Keys name the call site, the branch, the block call and the occurrence (the loop's second round is #1).
    expect(keys).toEqual(
      expect.arrayContaining([
        "/parallel@8:1#0/b0/session@9:7#0",
        "/parallel@8:1#0/b1/session@10:7#0",
        "/session@16:11#0",
        "/session@16:11#1",
        "/do:polish@22:1#0/session@20:18#0",
        "/session@24:1#0",
      ]),
    );
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("keeps a called program's state in imports/<name>/, its steps in the caller's journal", async () => {
    const folder = temporaryFolder("prosec-durable-modules-");
    await load('input topic: "Topic"\n\noutput summary = session "Summarise {topic}"\n', "helper", folder);
    const main = await load(
      'use "./helper.prose" as helper\n\nlet first = helper(topic: "moons")\nlet second = helper(topic: "rings")\noutput digest = first.summary + " / " + second.summary\n',
      "main",
      folder,
    );
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const server = await model();
    const outputs = await main.run({}, options(server, cwd, { runDir }));

    expect(readFileSync(join(runDir, "imports", "helper", "program.prose"), "utf8")).toContain("Summarise {topic}");
    expect(readFileSync(join(runDir, "imports", "helper", "bindings", "topic.md"), "utf8")).toContain("\nmoons\n");
    expect(readFileSync(join(runDir, "imports", "helper__2", "bindings", "summary.md"), "utf8")).toContain(
      "re: Summarise rings",
    );
    expect(readFileSync(join(runDir, "imports", "helper", "state.md"), "utf8")).toContain("status: complete");
    expect(journal(runDir).map((record) => record.key)).toEqual([
      "/use:helper@3:13#0/session@3:18#0",
      "/use:helper@4:14#0/session@3:18#0",
    ]);

    const replayServer = await model();
    expect(await main.run({}, options(replayServer, cwd, { runDir, resume: true }))).toEqual(outputs);
    expect(replayServer.requests).toHaveLength(0);
  });
});

describe("resuming a durable run", () => {
  it("replays every finished step without calling the model", async () => {
    const module = await load(PROGRAM);
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const first = await model();
    const outputs = await module.run({ topic: "tides" }, options(first, cwd, { runDir }));
    expect(first.requests.length).toBeGreaterThan(8);

    const second = await model();
    const events: string[] = [];
    const replayed = await module.run(
      {},
      options(second, cwd, {
        runDir,
        resume: true,
        onEvent: (event) => void (event.type === "session-end" && events.push(String(event.replayed))),
      }),
    );
    expect(replayed).toEqual(outputs);
    expect(second.requests).toHaveLength(0);
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events)).toEqual(new Set(["true"]));
  });

  it.each([0, 3, 6, 9])(
    "after a failure at request %i, calls the model only for the steps that had not finished",
    async (failAt) => {
      const module = await load(PROGRAM);
      const reference = await module.run({ topic: "tides" }, options(await model(), temporaryFolder()));

      const cwd = temporaryFolder();
      const runDir = join(cwd, "run");
      const failing = await model(failAt);
      await expect(module.run({ topic: "tides" }, options(failing, cwd, { runDir }))).rejects.toBeInstanceOf(
        ProseError,
      );
      expect(readFileSync(join(runDir, "state.md"), "utf8")).toContain("status: failed");
      const finished = finishedSteps(runDir);
      expect(finished.length).toBe(journal(runDir).length);
      if (failAt > 0) expect(finished.length).toBeGreaterThan(0);

      const resumed = await model();
      expect(await module.run({}, options(resumed, cwd, { runDir, resume: true }))).toEqual(reference);
      const asked = resumed.requests.map(identity);
      for (const id of finished) expect(asked).not.toContain(id);
      expect(readFileSync(join(runDir, "state.md"), "utf8")).toContain("status: complete");
    },
  );

  it("drops a journal record cut short by a crash, and runs that step again", async () => {
    const module = await load('let a = session "First"\nlet b = session "Second"\noutput both = a + b\n');
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const outputs = await module.run({}, options(await model(), cwd, { runDir }));
    const records = readFileSync(join(runDir, "journal.jsonl"), "utf8").split("\n");
    writeFileSync(join(runDir, "journal.jsonl"), `${records[0]}\n${records[1]!.slice(0, 30)}`);

    const resumed = await model();
    expect(await module.run({}, options(resumed, cwd, { runDir, resume: true }))).toEqual(outputs);
    expect(resumed.requests).toHaveLength(1);
    const repaired = readFileSync(join(runDir, "journal.jsonl"), "utf8");
    expect(repaired.endsWith("\n")).toBe(true);
    expect(repaired.trim().split("\n")).toHaveLength(2);
  });

  it("refuses a journal with a damaged complete line, wherever it is, without touching it", async () => {
    const module = await load('let a = session "First"\nlet b = session "Second"\noutput both = a + b\n');
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const server = await model();
    await module.run({}, options(server, cwd, { runDir }));
    const [first, second] = readFileSync(join(runDir, "journal.jsonl"), "utf8").split("\n");
    const path = join(runDir, "journal.jsonl");
    // Each is JSON, none is a step record: a key that is not text, an unknown kind, no value.
    for (const damaged of [
      '{"key":5,"kind":"session","value":"x","usage":[]}',
      '{"key":"/k","kind":"guess","value":"x","usage":[]}',
      '{"key":"/k","kind":"session","usage":[]}',
      "[]",
    ]) {
      const content = `${first}\n${damaged}\n${second}\n`;
      writeFileSync(path, content);
      const error = await module
        .run({}, options(server, cwd, { runDir, resume: true }))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RunStateError);
      expect((error as Error).message).toBe(
        `${path} is damaged at line 2 of 3: it is not a step record written by prosec, so the run cannot be resumed as it is. Either start a new run, or delete line 2 and the line after it from the journal and resume: the step on line 1 is replayed and the model is asked again for the rest.`,
      );
      expect(readFileSync(path, "utf8")).toBe(content);
    }
    writeFileSync(path, `${first}\n{}\n`);
    await expect(module.run({}, options(server, cwd, { runDir, resume: true }))).rejects.toThrow(
      /damaged at line 2 of 2: .* delete line 2 from the journal and resume/,
    );
    expect(server.requests).toHaveLength(2);
  });

  it("reads a run.json without the fields added after 0.2 and keeps fields it does not know", async () => {
    const module = await load('let a = session "First"\noutput b = session "Second"\n');
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const failing = await model(1);
    await expect(module.run({}, options(failing, cwd, { runDir }))).rejects.toBeInstanceOf(ProseError);
    const path = join(runDir, "run.json");
    const { stepScheme, ...written } = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    expect(stepScheme).toBe(STEP_SCHEME);
    writeFileSync(path, JSON.stringify({ ...written, addedLater: { by: "a later prosec" } }));
    const resumed = await model();
    await module.run({}, options(resumed, cwd, { runDir, resume: true }));
    expect(resumed.requests).toHaveLength(1);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      ...written,
      addedLater: { by: "a later prosec" },
      stepScheme: STEP_SCHEME,
    });
  });

  it("replaces run.json whole on resume: a second resume reading it before the lock never sees half of it", async () => {
    const module = await load('let a = session "First"\noutput b = session "Second"\n');
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    await expect(module.run({}, options(await model(1), cwd, { runDir }))).rejects.toBeInstanceOf(ProseError);
    const path = join(runDir, "run.json");
    const before = readFileSync(path, "utf8");
    // An open descriptor is what a reader holds mid-read: written in place, it would see the new bytes.
    const reader = openSync(path, "r");
    try {
      await module.run({}, options(await model(), cwd, { runDir, resume: true }));
      expect(statSync(path).ino).not.toBe(fstatSync(reader).ino);
      expect(readFileSync(reader, "utf8")).toBe(before);
    } finally {
      closeSync(reader);
    }
    expect(readdirSync(runDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a changed program under strict, a different input, a folder that holds a run, and resume without a folder", async () => {
    const original = await load('input topic: "Topic"\noutput a = session "About {topic}"\n');
    const changed = await load('input topic: "Topic"\noutput a = session "All about {topic}"\n');
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const server = await model();
    await original.run({ topic: "tides" }, options(server, cwd, { runDir }));
    const requests = server.requests.length;

    // With `strict` a changed program is refused (without it, it is resumed: test/run/resume-edits.test.ts).
    await expect(changed.run({}, options(server, cwd, { runDir, resume: true, strict: true }))).rejects.toThrow(
      /The program changed since run \S+ started .* --strict resumes only the very program that ran: start a new run, restore the program as it was/,
    );
    await expect(original.run({ topic: "waves" }, options(server, cwd, { runDir, resume: true }))).rejects.toThrow(
      /The input "topic" differs from the one run \S+ started with/,
    );
    await expect(original.run({ topic: "tides" }, options(server, cwd, { runDir }))).rejects.toThrow(
      /already holds run \S+: resume it, or start the new run in another folder/,
    );
    await expect(original.run({ topic: "tides" }, options(server, cwd, { resume: true }))).rejects.toThrow(
      /resume: true needs the runDir/,
    );
    const manifestPath = join(runDir, "run.json");
    const manifest = readFileSync(manifestPath, "utf8");
    // Another prosec version with the same step scheme replays the run (here: all of it, nothing is asked).
    writeFileSync(manifestPath, manifest.replace(/"compilerVersion": "[^"]*"/, '"compilerVersion": "0.0.1"'));
    await expect(original.run({}, options(server, cwd, { runDir, resume: true }))).resolves.toEqual({
      a: expect.stringContaining("About tides") as string,
    });
    writeFileSync(
      manifestPath,
      manifest
        .replace(/"stepScheme": \d+/, `"stepScheme": ${STEP_SCHEME + 1}`)
        .replace(/"compilerVersion": "[^"]*"/, '"compilerVersion": "0.0.1"'),
    );
    const refused = original.run({}, options(server, cwd, { runDir, resume: true }));
    await expect(refused).rejects.toThrow(RunStateError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `recorded by prosec 0\\.0\\.1 with step scheme ${STEP_SCHEME + 1}; .* Resume it with prosec 0\\.0\\.1`,
      ),
    );
    writeFileSync(manifestPath, manifest);
    await expect(
      original.run({}, options(server, cwd, { runDir: join(cwd, "nothing-here"), resume: true })),
    ).rejects.toThrow(/nothing-here\/run\.json is missing: .* cannot be resumed\. Start a new run\./);
    expect(server.requests).toHaveLength(requests);
  });

  it("a cancelled run says so in state.md and resumes to the same outputs", async () => {
    const module = await load(PROGRAM);
    const reference = await module.run({ topic: "tides" }, options(await model(), temporaryFolder()));
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    const controller = new AbortController();
    const answer = deterministicModel(finalAfterRoundOne);
    const server = await startFakeAnthropic({
      respond: (request) => {
        if (request.index === 4) {
          controller.abort(new ProseError("interrupted by the test"));
          return { kind: "hang" };
        }
        return answer(request);
      },
    });
    servers.push(server);
    await expect(
      module.run({ topic: "tides" }, options(server, cwd, { runDir, signal: controller.signal })),
    ).rejects.toThrow(/interrupted by the test/);
    expect(readFileSync(join(runDir, "state.md"), "utf8")).toContain("status: interrupted");
    expect(existsSync(join(runDir, ".lock"))).toBe(false);

    const finished = finishedSteps(runDir);
    expect(finished.length).toBeGreaterThan(0);

    const resumed = await model();
    expect(await module.run({}, options(resumed, cwd, { runDir, resume: true }))).toEqual(reference);
    const asked = resumed.requests.map(identity);
    for (const id of finished) expect(asked).not.toContain(id);
  });
});

describe("state.md as a long run grows", () => {
  it("lists every top-level binding and the latest 100 of block calls, saying how many it leaves out", async () => {
    const module = await load(
      'let intro = session "Introduce"\n\nblock note(n):\n  let line = session "Note {n}"\n\nrepeat 130 as i:\n  do note(i)\n',
    );
    const cwd = temporaryFolder();
    const runDir = join(cwd, "run");
    await module.run({}, options(await model(), cwd, { runDir }));
    const state = readFileSync(join(runDir, "state.md"), "utf8");
    expect(readdirSync(join(runDir, "bindings")).filter((name) => name.startsWith("line__"))).toHaveLength(130);
    expect(state).toContain("| intro | let | bindings/intro.md | (root) |");
    expect(state).not.toContain("bindings/line__30.md");
    expect(state).toContain("| line | let | bindings/line__31.md | 31 |");
    expect(state).toContain("| line | let | bindings/line__130.md | 130 |");
    expect(state).toContain("30 earlier bindings of block calls are not listed; their files are in bindings/.");
    expect(state).toContain("status: complete");
  });
});

describe("a failure the program caught", () => {
  it("is journaled, so a resumed run throws it again and takes the same path; one that stopped the run is run again", async () => {
    const module = await load(`let figures = try:
  session "Fetch the figures"
catch as err:
  session "Estimate the figures"
    context: err

output report = session "Write the report"
  context: figures
`);
    const cwd = temporaryFolder();
    const runDir = join(cwd, ".prose", "runs", "20260115-143052-c4c4c4");
    // The fetch fails (caught), the estimate answers, the report fails: the run stops there.
    const first = await startFakeAnthropic({
      script: [
        reply.error(400, { message: "figures unavailable" }),
        reply.text("About 40."),
        reply.error(400, { message: "report failed" }),
      ],
    });
    servers.push(first);
    await expect(module.run({}, options(first, cwd, { runDir }))).rejects.toThrow(/report failed/);
    const failed = journal(runDir).filter((record) => "failed" in record);
    expect(failed).toEqual([
      expect.objectContaining({ value: null, failed: expect.objectContaining({ cause: "api-error" }) }),
    ]);

    // Resumed: the fetch is not asked again (its failure is replayed, the estimate too); the report is.
    const second = await startFakeAnthropic({ script: [reply.text("The report.")] });
    servers.push(second);
    expect(await module.run({}, options(second, cwd, { runDir, resume: true }))).toEqual({ report: "The report." });
    expect(second.requests).toHaveLength(1);
    expect(JSON.stringify(second.requests[0]!.body)).toContain("About 40.");
  });
});
