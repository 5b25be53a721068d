/**
 * A run's saved state through `prosec run --resume`, as a user meets it: a run folder recorded by
 * prosec 0.2 (test/fixtures/runs/0.2/), a journal damaged in the middle, a missing or damaged
 * run.json, and a `.lock` naming a live process. Unusable state exits with EXIT.runStateUnusable and a
 * message that names the file and what to do; nothing is asked of the model.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { compilerVersion } from "../../src/version.js";
import { REPLAYED_SCHEMES, STEP_SCHEME } from "../../runtime/index.js";
import { bin, startProsec, type CliResult } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { waitFor } from "../support/wait.js";
import {
  askedText,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const fixture = fileURLToPath(new URL("../fixtures/runs/0.2/", import.meta.url));
const RUN_ID = "20261123-172351-e44f83";
const runDir = join(".prose", "runs", RUN_ID);
const answer = deterministicModel((question) => question.includes("round 1"));

const servers: FakeServer[] = [];
const stragglers: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
afterEach(async () => {
  for (const child of stragglers.splice(0)) child.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(respond: (request: FakeRequest) => FakeReply = answer): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

/** A project holding the fixture's programs and, unless `withRun` is false, its recorded run. */
function project(withRun = true): string {
  const cwd = temporaryFolder("prosec-run-state-");
  for (const file of ["report.prose", "summarize.prose"]) cpSync(join(fixture, file), join(cwd, file));
  if (withRun) cpSync(join(fixture, RUN_ID), join(cwd, runDir), { recursive: true });
  return cwd;
}

/** The run recorded just before step addresses (step scheme 3: `step` and `requestHash` fields). */
const SCHEME_3_FIXTURE = fileURLToPath(new URL("../fixtures/runs/scheme-3/", import.meta.url));
const SCHEME_3_RUN = "20261128-124756-0d2367";

/** The run recorded just before turn steps (step scheme 1, with anchors and request hashes). */
const SCHEME_1_FIXTURE = fileURLToPath(new URL("../fixtures/runs/scheme-1/", import.meta.url));
const SCHEME_1_RUN = "20261126-054209-4d0052";

function prosec(cwd: string, server: FakeServer, args: readonly string[]) {
  return startProsec(args, cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url });
}

function resume(cwd: string, server: FakeServer): Promise<CliResult> {
  return prosec(cwd, server, ["run", "report.prose", "--resume", RUN_ID, "--json"]).exit;
}

function outputsOf(result: CliResult): unknown {
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { type: string; outputs?: unknown };
  expect(last.type, result.stderr).toBe("outputs");
  return last.outputs;
}

/** The outputs and request count of an uninterrupted run of the fixture's program by this prosec (run once). */
let referenceRun: Promise<{ outputs: unknown; requests: number }> | undefined;
function reference(): Promise<{ outputs: unknown; requests: number }> {
  return (referenceRun ??= uninterrupted());
}

async function uninterrupted(): Promise<{ outputs: unknown; requests: number }> {
  const server = await startFakeAnthropic({ respond: answer });
  const result = await prosec(project(false), server, ["run", "report.prose", "-i", "topic=tides", "--json"]).exit;
  await server.close();
  expect(result.status, result.stderr).toBe(EXIT.ok);
  return { outputs: outputsOf(result), requests: server.requests.length };
}

/**
 * Outputs without the deterministic model's request identities (`[5f729fea23df] re: ...`): a step's
 * identity hashes its request as sent, and the requests after the replayed steps show values recorded
 * by prosec 0.2, whose requests were laid out otherwise (before prompt caching put the context first).
 */
function withoutIdentities(outputs: unknown): unknown {
  return JSON.parse(JSON.stringify(outputs).replace(/\[[0-9a-f]{12}\] /g, ""));
}

/** What `--json` printed for a run that did not start: the message of its `failed` line. */
function failure(result: CliResult): string {
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { type: string; message: string };
  expect(last.type).toBe("failed");
  return last.message;
}

const journalLines = (cwd: string): string[] =>
  readFileSync(join(cwd, runDir, "journal.jsonl"), "utf8")
    .split("\n")
    .slice(0, -1);

describe("a run folder recorded by prosec 0.2", () => {
  it(`replays its 16 finished steps (step scheme 1) and finishes with the outputs of an uninterrupted run`, async () => {
    expect(REPLAYED_SCHEMES).toContain(1);
    const expected = await reference();
    const cwd = project();
    expect(journalLines(cwd)).toHaveLength(16);
    const server = await serve();
    const result = await resume(cwd, server);
    expect(result.status, result.stderr).toBe(EXIT.ok);
    expect(withoutIdentities(outputsOf(result))).toEqual(withoutIdentities(expected.outputs));
    expect(server.requests.map((request) => askedText(request).split("\n")[0])).toEqual(["Assemble the report"]);
    expect(expected.requests).toBe(17);
    const manifest = JSON.parse(readFileSync(join(cwd, runDir, "run.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      runId: RUN_ID,
      compilerVersion: "0.2.0",
      stepScheme: STEP_SCHEME,
      inputs: { topic: "tides" },
    });
  });

  it("is refused when its step scheme is not this prosec's, with the prosec that can resume it", async () => {
    const cwd = project();
    const path = join(cwd, runDir, "run.json");
    const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify({ ...manifest, compilerVersion: "9.1.0", stepScheme: STEP_SCHEME + 1 }));
    const server = await serve();
    const result = await resume(cwd, server);
    expect(result.status).toBe(EXIT.runStateUnusable);
    expect(failure(result)).toBe(
      `Run ${RUN_ID} was recorded by prosec 9.1.0 with step scheme ${STEP_SCHEME + 1}; this prosec (${compilerVersion}) replays step schemes ${REPLAYED_SCHEMES.join(", ")} only, so it cannot find the run's finished steps. Resume it with prosec 9.1.0 (or any release with step scheme ${STEP_SCHEME + 1}), or start a new run.`,
    );
    expect(server.requests).toEqual([]);
    expect(existsSync(join(cwd, runDir, ".lock"))).toBe(false);
  });
});

describe("a run folder recorded with step scheme 3 before step addresses", () => {
  /** The fixture's run in a project of its programs, the main one with `edit` applied. */
  function scheme3Project(edit: (text: string) => string = (text) => text): string {
    const cwd = project(false);
    writeFileSync(join(cwd, "report.prose"), edit(readFileSync(join(SCHEME_3_FIXTURE, "report.prose"), "utf8")));
    cpSync(join(SCHEME_3_FIXTURE, SCHEME_3_RUN), join(cwd, ".prose", "runs", SCHEME_3_RUN), { recursive: true });
    return cwd;
  }

  async function resumeScheme3(cwd: string): Promise<{ result: CliResult; asked: string[] }> {
    const server = await serve();
    const result = await prosec(cwd, server, ["run", "report.prose", "--resume", SCHEME_3_RUN, "--json"]).exit;
    return { result, asked: server.requests.map((request) => askedText(request).split("\n")[0]!) };
  }

  it("replays its 16 finished steps and finishes with the outputs of an uninterrupted run, as scheme 4 from then on", async () => {
    const expected = await reference();
    const cwd = scheme3Project();
    const { result, asked } = await resumeScheme3(cwd);
    expect(result.status, result.stderr).toBe(EXIT.ok);
    expect(outputsOf(result)).toEqual(expected.outputs);
    expect(asked).toEqual(["Assemble the report"]);
    const dir = join(cwd, ".prose", "runs", SCHEME_3_RUN);
    expect(JSON.parse(readFileSync(join(dir, "run.json"), "utf8"))).toMatchObject({ stepScheme: STEP_SCHEME });
    // The records this prosec added name the structure and the request as scheme 4 does.
    const added = readFileSync(join(dir, "journal.jsonl"), "utf8").split("\n").slice(16, -1);
    const session = added.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => "kind" in line);
    expect(Object.keys(session ?? {})).toEqual(expect.arrayContaining(["structure", "request", "fingerprint"]));
    expect(Object.keys(session ?? {})).not.toContain("step");
  });

  it("an edited program whose every step moved reuses the 16 steps by their structure (recorded as `step`)", async () => {
    const expected = await reference();
    const cwd = scheme3Project((text) => `# A line added above everything: no step keeps its site.\n${text}`);
    const { result, asked } = await resumeScheme3(cwd);
    expect(result.status, result.stderr).toBe(EXIT.ok);
    expect(outputsOf(result)).toEqual(expected.outputs);
    expect(asked).toEqual(["Assemble the report"]);
  });
});

describe("a run folder recorded with step scheme 1 before turn steps", () => {
  it("replays its 16 finished steps, finishes with the outputs of an uninterrupted run, and is this prosec's step scheme from then on", async () => {
    const expected = await reference();
    const cwd = project(false);
    cpSync(join(SCHEME_1_FIXTURE, SCHEME_1_RUN), join(cwd, ".prose", "runs", SCHEME_1_RUN), { recursive: true });
    const server = await serve();
    const result = await prosec(cwd, server, ["run", "report.prose", "--resume", SCHEME_1_RUN, "--json"]).exit;
    expect(result.status, result.stderr).toBe(EXIT.ok);
    expect(withoutIdentities(outputsOf(result))).toEqual(withoutIdentities(expected.outputs));
    expect(server.requests.map((request) => askedText(request).split("\n")[0])).toEqual(["Assemble the report"]);
    const manifest = JSON.parse(readFileSync(join(cwd, ".prose", "runs", SCHEME_1_RUN, "run.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({ runId: SCHEME_1_RUN, compilerVersion: "0.2.0", stepScheme: STEP_SCHEME });
    // Its 16 lines carry no checksum; every line this prosec wrote after them does.
    expect(manifest["checksumsFrom"]).toBe(16);
    const lines = readFileSync(join(cwd, ".prose", "runs", SCHEME_1_RUN, "journal.jsonl"), "utf8").split("\n");
    lines.pop();
    expect(lines.slice(0, 16).filter((line) => line.includes('"sum":'))).toEqual([]);
    expect(lines.length).toBeGreaterThan(16);
    for (const line of lines.slice(16)) expect(line).toMatch(/,"sum":"[0-9a-f]{16}"\}$/);
  });

  it("a record hand-edited after it was written, still valid JSON, is refused with its line (exit 7), as is one without its checksum", async () => {
    const cwd = project(false);
    const dir = join(cwd, ".prose", "runs", SCHEME_1_RUN);
    cpSync(join(SCHEME_1_FIXTURE, SCHEME_1_RUN), dir, { recursive: true });
    const server = await serve();
    const done = await prosec(cwd, server, ["run", "report.prose", "--resume", SCHEME_1_RUN, "--json"]).exit;
    expect(done.status, done.stderr).toBe(EXIT.ok);
    const path = join(dir, "journal.jsonl");
    const original = readFileSync(path, "utf8");
    const lines = original.split("\n");
    const edited = lines.findIndex((line, index) => index >= 16 && line.includes('"kind":"session"'));
    expect(edited).toBeGreaterThanOrEqual(16);
    const resumeIt = () => prosec(cwd, server, ["run", "report.prose", "--resume", SCHEME_1_RUN, "--json"]).exit;

    lines[edited] = lines[edited]!.replace(/"value":"/, '"value":"EDITED ');
    writeFileSync(path, lines.join("\n"));
    const changed = await resumeIt();
    expect(changed.status).toBe(EXIT.runStateUnusable);
    expect(failure(changed)).toContain(
      `is damaged at line ${edited + 1} of ${lines.length - 1}: the record was changed after prosec wrote it (its checksum does not match)`,
    );

    lines[edited] = original.split("\n")[edited]!.replace(/,"sum":"[0-9a-f]{16}"\}$/, "}");
    writeFileSync(path, lines.join("\n"));
    const unsummed = await resumeIt();
    expect(unsummed.status).toBe(EXIT.runStateUnusable);
    expect(failure(unsummed)).toContain(
      `is damaged at line ${edited + 1} of ${lines.length - 1}: it is not a step record`,
    );

    writeFileSync(path, original);
    const asRecorded = await resumeIt();
    expect(asRecorded.status, asRecorded.stderr).toBe(EXIT.ok);
    expect(server.requests.length).toBe(1);
  });
});

describe("damaged run state", () => {
  it("a damaged line in the middle of journal.jsonl: exit 7 naming the line; doing what it says resumes the run", async () => {
    const expected = await reference();
    const cwd = project();
    const journal = join(cwd, runDir, "journal.jsonl");
    const lines = journalLines(cwd);
    lines[4] = '{"key": "/session@18:11#0", "kind": "sess';
    writeFileSync(journal, `${lines.join("\n")}\n`);
    const server = await serve();
    const refused = await resume(cwd, server);
    expect(refused.status).toBe(EXIT.runStateUnusable);
    expect(failure(refused)).toBe(
      `${join(runDir, "journal.jsonl")} is damaged at line 5 of 16: it is not a step record written by prosec, so the run cannot be resumed as it is. Either start a new run, or delete line 5 and the 11 lines after it from the journal and resume: the steps on lines 1 to 4 are replayed and the model is asked again for the rest.`,
    );
    expect(server.requests).toEqual([]);
    expect(readFileSync(journal, "utf8")).toBe(`${lines.join("\n")}\n`);
    expect(existsSync(join(cwd, runDir, ".lock"))).toBe(false);

    writeFileSync(journal, `${lines.slice(0, 4).join("\n")}\n`);
    const resumed = await resume(cwd, server);
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    expect(withoutIdentities(outputsOf(resumed))).toEqual(withoutIdentities(expected.outputs));
    expect(server.requests).toHaveLength(expected.requests - 4);
  });

  it("a missing or damaged run.json: exit 7 naming the file; an unknown run id stays a usage error", async () => {
    const cwd = project();
    const server = await serve();
    const manifest = join(cwd, runDir, "run.json");
    rmSync(manifest);
    const missing = await resume(cwd, server);
    expect(missing.status).toBe(EXIT.runStateUnusable);
    expect(failure(missing)).toBe(
      `${join(runDir, "run.json")} is missing: without it the run's program and inputs are unknown, so the run in ${runDir} cannot be resumed. Start a new run.`,
    );

    writeFileSync(manifest, '{"runId": "x", ');
    const damaged = await resume(cwd, server);
    expect(damaged.status).toBe(EXIT.runStateUnusable);
    expect(failure(damaged)).toBe(
      `${join(runDir, "run.json")} is damaged (it is not JSON): it is not a run.json written by prosec, so the run cannot be resumed. Start a new run.`,
    );

    const unknown = await prosec(cwd, server, ["run", "report.prose", "--resume", "20260101-000000-000000"]).exit;
    expect(unknown.status).toBe(EXIT.usage);
    expect(unknown.stderr).toBe(
      "prosec: --resume 20260101-000000-000000: there is no such run in .prose/runs (set DBOS_SYSTEM_DATABASE_URL to resume a run in a DBOS database)\n",
    );
    expect(server.requests).toEqual([]);
  });

  it("a .lock naming a live process: exit 7 saying what that process is; a dead one's lock is taken over", async () => {
    const cwd = project();
    const lock = join(runDir, ".lock");
    // A live process that is not prosec running this run (as when a crashed run's pid is reused).
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    stragglers.push(sleeper);
    writeFileSync(join(cwd, lock), `${sleeper.pid}\n`);
    const server = await serve((request) => (request.index === 0 ? { kind: "hang" } : answer(request)));
    const refused = await resume(cwd, server);
    expect(refused.status).toBe(EXIT.runStateUnusable);
    expect(failure(refused)).toBe(
      `${lock} names process ${sleeper.pid}, which is running \`${process.execPath} -e setTimeout(() => {}, 60000)\`, not prosec running run ${RUN_ID}. If no process is running this run, delete ${lock} and resume.`,
    );
    expect(server.requests).toEqual([]);

    // A dead process's lock is taken over; while that run is under way, a second resume is refused.
    writeFileSync(join(cwd, lock), `${spawnSync(process.execPath, ["-e", ""]).pid}\n`);
    const args = ["run", "report.prose", "--resume", RUN_ID, "--json"];
    const first = prosec(cwd, server, args);
    stragglers.push(first.child);
    await waitFor(() => server.requests.length > 0, "the first resume's first request");
    const second = await resume(cwd, server);
    expect(second.status).toBe(EXIT.runStateUnusable);
    expect(failure(second)).toBe(
      `Run ${RUN_ID} is in use by process ${first.child.pid} (\`${[process.execPath, bin, ...args].join(" ")}\`). Wait for it to stop, or stop it, then resume.`,
    );

    first.child.kill("SIGKILL");
    await first.exit;
    const taken = await resume(cwd, server);
    expect(taken.status, taken.stderr).toBe(EXIT.ok);
    expect(server.requests).toHaveLength(2);
    expect(existsSync(join(cwd, lock))).toBe(false);
  });
});
