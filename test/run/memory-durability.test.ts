/**
 * A persistent agent's memory under a crash: a session's addition to its memory is recorded with its
 * step in the journal and written to the memory folder after it, so a crash between the two loses
 * nothing (the resume writes what the folder lacks) and duplicates nothing (a segment names the run
 * and step it records, and a replay finds it). Crashes are simulated by putting the folder back as a
 * kill at that point leaves it; test/run/kill-points.slow.test.ts kills `prosec run` for real.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { EnvironmentError, type RunOptions, type Value } from "../../runtime/index.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { firstUserText } from "../support/requests.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

const PROGRAM = `agent keeper:
  persist: project

let a = session: keeper
  prompt: "First note"
let b = session: keeper
  prompt: "Second note"
output both = session "Join the notes"
  context: { a, b }
`;

interface Module {
  run(inputs: Record<string, Value>, options?: RunOptions): Promise<Record<string, Value>>;
}

let loaded = 0;
async function load(source = PROGRAM): Promise<Module> {
  const { code } = lowerSource(source, `memory${++loaded}.prose`);
  const path = join(temporaryFolder("prosec-memory-modules-"), `memory${loaded}.prose.ts`);
  writeFileSync(path, code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function model(): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond: deterministicModel() });
  servers.push(server);
  return server;
}

const RUN_ID = "20261129-050000-abcdef";

/** A finished run of PROGRAM in a new project: its folder, the memory folder, what both hold. */
async function finishedRun(module: Module) {
  const cwd = temporaryFolder("prosec-memory-");
  const runDir = join(cwd, ".prose", "runs", RUN_ID);
  const options: RunOptions = { apiKey: TEST_API_KEY, baseURL: (await model()).url, cwd, runDir, runId: RUN_ID };
  const outputs = await module.run({}, options);
  const memoryDir = join(cwd, ".prose", "agents", "keeper");
  return { cwd, runDir, memoryDir, options, outputs, memory: readFileSync(join(memoryDir, "memory.md"), "utf8") };
}

/** The journal cut after the (last) record of the second keeper session: the run was killed before "Join". */
function cutAfterSecondNote(runDir: string): void {
  const path = join(runDir, "journal.jsonl");
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
  const second = lines.findLastIndex((line) => line.includes("Second note"));
  expect(second).toBeGreaterThan(0);
  writeFileSync(path, `${lines.slice(0, second + 1).join("\n")}\n`);
}

const segments = (memoryDir: string): string[] =>
  readdirSync(memoryDir)
    .filter((name) => name !== "memory.md")
    .sort();

describe("a persistent agent's memory when a run is killed", () => {
  it("after a session's record and before its memory was written: the resume writes the memory once, asking nothing again", async () => {
    const module = await load();
    const run = await finishedRun(module);
    cutAfterSecondNote(run.runDir);
    // The memory as the kill left it: the second session's segment and summary not written yet.
    rmSync(join(run.memoryDir, "keeper-002.md"));
    writeFileSync(
      join(run.memoryDir, "memory.md"),
      run.memory.slice(0, run.memory.indexOf("\n## Segment 002 Summary")),
    );

    const resumed = await model();
    expect(await module.run({}, { ...run.options, baseURL: resumed.url, resume: true })).toEqual(run.outputs);
    expect(resumed.requests.map((request) => firstUserText(request))).toEqual(["Join the notes"]);
    expect(readFileSync(join(run.memoryDir, "memory.md"), "utf8")).toBe(run.memory);
    expect(segments(run.memoryDir)).toEqual(["keeper-001.md", "keeper-002.md"]);
    expect(readFileSync(join(run.memoryDir, "keeper-002.md"), "utf8")).toContain(
      `prompt: "Second note"\nrun: ${RUN_ID}\nstep: "/session@6:9#0"\n`,
    );
  });

  it("between a session's segment and its memory.md: the resume completes memory.md without a second segment", async () => {
    const module = await load();
    const run = await finishedRun(module);
    cutAfterSecondNote(run.runDir);
    writeFileSync(
      join(run.memoryDir, "memory.md"),
      run.memory.slice(0, run.memory.indexOf("\n## Segment 002 Summary")),
    );

    const resumed = await model();
    expect(await module.run({}, { ...run.options, baseURL: resumed.url, resume: true })).toEqual(run.outputs);
    expect(readFileSync(join(run.memoryDir, "memory.md"), "utf8")).toBe(run.memory);
    expect(segments(run.memoryDir)).toEqual(["keeper-001.md", "keeper-002.md"]);
  });

  it("with the memory written: a resume replays the sessions and writes nothing again", async () => {
    const module = await load();
    const run = await finishedRun(module);
    cutAfterSecondNote(run.runDir);
    const before = segments(run.memoryDir).map((name) => readFileSync(join(run.memoryDir, name), "utf8"));

    const resumed = await model();
    expect(await module.run({}, { ...run.options, baseURL: resumed.url, resume: true })).toEqual(run.outputs);
    expect(readFileSync(join(run.memoryDir, "memory.md"), "utf8")).toBe(run.memory);
    expect(segments(run.memoryDir).map((name) => readFileSync(join(run.memoryDir, name), "utf8"))).toEqual(before);
  });
});

/** The pid of a process that has ended. */
function deadPid(): number {
  const ended = spawnSync(process.execPath, ["-e", ""]);
  expect(ended.status).toBe(0);
  return ended.pid!;
}

describe("a persistent agent's memory when an edited program's resume is killed", () => {
  it("a session asked again at the same site after an edit is another session: killed before its memory, the resume writes it", async () => {
    const run = await finishedRun(await load());
    cutAfterSecondNote(run.runDir);
    const edited = await load(PROGRAM.replace('"Second note"', '"Second note, shorter"'));
    const again = await model();
    const outputs = await edited.run({}, { ...run.options, baseURL: again.url, resume: true });
    const asked = again.requests.map((request) => firstUserText(request).split("\n")[0]);
    expect(asked.slice(-2)).toEqual(["Second note, shorter", "Join the notes"]);
    const written = segments(run.memoryDir);
    const last = written.at(-1)!;
    expect(readFileSync(join(run.memoryDir, last), "utf8")).toContain('prompt: "Second note, shorter"');
    const memory = readFileSync(join(run.memoryDir, "memory.md"), "utf8");
    // Killed after the edited session's record, before its memory was written: a segment of the
    // same run and site (the session before the edit) is in the folder.
    cutAfterSecondNote(run.runDir);
    rmSync(join(run.memoryDir, last));
    const heading = `\n## Segment ${last.slice("keeper-".length, -".md".length)} Summary`;
    writeFileSync(join(run.memoryDir, "memory.md"), memory.slice(0, memory.indexOf(heading)));

    const resumed = await model();
    expect(await edited.run({}, { ...run.options, baseURL: resumed.url, resume: true })).toEqual(outputs);
    expect(resumed.requests.map((request) => firstUserText(request))).toEqual(["Join the notes"]);
    expect(readFileSync(join(run.memoryDir, "memory.md"), "utf8")).toBe(memory);
    expect(segments(run.memoryDir)).toEqual(written);
  });
});

describe("temporary files a killed process left", () => {
  it("are removed from the run folder when it is resumed and from a memory folder before the run writes there; a live process's stay", async () => {
    const module = await load();
    const run = await finishedRun(module);
    cutAfterSecondNote(run.runDir);
    const dead = deadPid();
    // An atomic replace killed after its temporary file was written, before the rename.
    const stale = [
      join(run.runDir, `.run.json.${dead}.tmp`),
      join(run.runDir, "bindings", `a.md.${dead}.tmp`),
      join(run.runDir, `state.md.${dead}.k2j4h5.tmp`),
      join(run.runDir, "imports", "notes", "bindings", `summary.md.${dead}.tmp`),
      join(run.memoryDir, `keeper-003.md.${dead}.abc123.tmp`),
      join(run.memoryDir, `memory.md.${dead}.tmp`),
    ];
    // Init's, which runs; and in a memory folder, a file that is not one of the memory's.
    const kept = [join(run.runDir, "bindings", "b.md.1.tmp"), join(run.memoryDir, `notes.txt.${dead}.tmp`)];
    mkdirSync(join(run.runDir, "imports", "notes", "bindings"), { recursive: true });
    for (const path of [...stale, ...kept]) writeFileSync(path, "half");

    const resumed = await model();
    expect(await module.run({}, { ...run.options, baseURL: resumed.url, resume: true })).toEqual(run.outputs);
    for (const path of stale) expect(() => readFileSync(path), path).toThrow(/ENOENT/);
    for (const path of kept) expect(readFileSync(path, "utf8")).toBe("half");
  });
});

/** A tmpfs at a new folder (holding `folders`), read-only; undefined where this process may not mount one. */
function readOnlyTmpfs(folders: readonly string[]): string | undefined {
  const point = mkdtempSync(join(tmpdir(), "prosec-memory-ro-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point], { stdio: "ignore" });
  } catch {
    rmdirSync(point);
    return undefined;
  }
  for (const folder of folders) mkdirSync(join(point, folder));
  execFileSync("mount", ["-o", "remount,ro", point]);
  return point;
}

describe("a persistent agent's memory that cannot be written", () => {
  it("stops the run (EnvironmentError), even inside try:, instead of a run that succeeds without it; the resume writes it", async (test) => {
    const point = readOnlyTmpfs(["keeper"]);
    if (point === undefined) return test.skip();
    try {
      const source = `agent keeper:\n  persist: "${point}/keeper"\n\ntry:\n  let a = session: keeper\n    prompt: "First note"\ncatch:\n  session "Caught"\noutput after = session "After"\n`;
      const module = await load(source);
      const cwd = temporaryFolder("prosec-memory-");
      const first = await model();
      const options: RunOptions = { apiKey: TEST_API_KEY, baseURL: first.url, cwd, runDir: join(cwd, "run") };
      const failure = await module.run({}, options).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(EnvironmentError);
      expect((failure as EnvironmentError).code).toBe("EROFS");
      expect(first.requests.map((request) => firstUserText(request).split("\n")[0])).toEqual(["First note"]);

      execFileSync("mount", ["-o", "remount,rw", point]);
      const resumed = await model();
      await module.run({}, { ...options, baseURL: resumed.url, resume: true });
      expect(resumed.requests.map((request) => firstUserText(request))).toEqual(["After"]);
      expect(readdirSync(join(point, "keeper")).sort()).toEqual(["keeper-001.md", "memory.md"]);
    } finally {
      execFileSync("umount", [point]);
      rmdirSync(point);
    }
  });
});
