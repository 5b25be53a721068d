/**
 * The RunStore of `.prose/runs/` (src/runs/folder-runs.ts) against the table every store answers
 * (test/support/run-store-cases.ts), on recorded run folders; and openRunStore without a database.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { FolderRuns } from "../../src/runs/folder-runs.js";
import { openRunStore } from "../../src/runs/open-run-store.js";
import { runStoreCases, type StoreFixture } from "../support/run-store-cases.js";
import { temporaryFolder } from "../support/temp.js";

const fixtures = fileURLToPath(new URL("../fixtures/view-runs/", import.meta.url));
const COMPLETE = "20261126-064702-e1cc6a";
const WAITING = "20261126-064708-5d5635";
/** A second copy of the waiting run, started a second later. */
const WAITING_TOO = "20261126-064709-5d5636";

/** A project whose .prose/runs holds the recorded complete run and two waiting ones. */
function project(): string {
  const cwd = temporaryFolder("prosec-folder-store-");
  const runs = join(cwd, ".prose", "runs");
  cpSync(join(fixtures, "finished", ".prose", "runs", COMPLETE), join(runs, COMPLETE), { recursive: true });
  cpSync(join(fixtures, "waiting", ".prose", "runs", WAITING), join(runs, WAITING), { recursive: true });
  cpSync(join(runs, WAITING), join(runs, WAITING_TOO), { recursive: true });
  const manifest = join(runs, WAITING_TOO, "run.json");
  const copied = JSON.parse(readFileSync(manifest, "utf8")) as { startedAt: string };
  writeFileSync(
    manifest,
    JSON.stringify({
      ...copied,
      runId: WAITING_TOO,
      startedAt: new Date(Date.parse(copied.startedAt) + 1000).toISOString(),
    }),
  );
  return cwd;
}

describe("folder runs", () => {
  let fixture: StoreFixture;
  beforeAll(() => {
    fixture = {
      store: new FolderRuns(project()),
      complete: COMPLETE,
      toAnswer: WAITING,
      toCancel: WAITING_TOO,
      input: "audience",
    };
  });
  runStoreCases(() => fixture);

  it("keeps the answer in the run's folder for its resume, and a cancelled run takes none", async () => {
    const cwd = project();
    const store = new FolderRuns(cwd);
    await store.answer(WAITING, { audience: "engineers" });
    const waiting = JSON.parse(readFileSync(join(cwd, ".prose", "runs", WAITING, "waiting.json"), "utf8")) as {
      answers: Record<string, string>;
    };
    expect(waiting.answers).toEqual({ "/input@4:1#0": "engineers" });
    await store.cancel(WAITING_TOO);
    await expect(store.answer(WAITING_TOO, { audience: "x" })).rejects.toThrow(
      new UsageError(`run ${WAITING_TOO} was cancelled; it takes no answers`),
    );
  });
});

describe("openRunStore without a database", () => {
  it("is the folder runs; an unknown run says where it looked and how to look in a database", async () => {
    const store = openRunStore(project(), { databaseUrl: undefined });
    expect((await store.list()).runs.map((run) => run.runId)).toEqual([WAITING_TOO, WAITING, COMPLETE]);
    expect((await store.list()).stores).toEqual(["file"]);
    await expect(store.cancel("20260101-000000-000000")).rejects.toThrow(
      new UsageError(
        "there is no run 20260101-000000-000000 in .prose/runs here, and DBOS_SYSTEM_DATABASE_URL is not set to look for it in a database",
      ),
    );
    await expect(store.answer("../../etc", {})).rejects.toThrow(
      new UsageError("../../etc: a run id has letters, digits, '.', '_' and '-' (at most 100)"),
    );
  });

  it("resumes a folder run in this process, and forks one into a new folder that reuses its beginning", async () => {
    const cwd = project();
    const store = openRunStore(cwd, { databaseUrl: undefined });
    expect(await store.resume(COMPLETE, { json: false, file: "finished.prose" })).toEqual({ runHere: COMPLETE });
    await expect(store.resume(COMPLETE, { json: false })).rejects.toThrow(/the program to run/);
    const fork = await store.fork(COMPLETE, 11, { json: false, file: "finished.prose" });
    expect(fork).toMatchObject({
      note: expect.stringMatching(
        /^forked run 20261126-064702-e1cc6a into \S+: reusing the 1 step it recorded before line 11$/,
      ),
    });
    const forkId = (fork as { runHere: string }).runHere;
    expect(await store.steps(forkId)).toEqual([expect.objectContaining({ key: "/session@8:13#0", status: "reused" })]);
  });
});
