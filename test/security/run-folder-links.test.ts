/**
 * prosec writes into a run folder by name: the journal and the trace appended, `program.prose`,
 * `bindings/<name>.md`, the `cancelled` mark. A run folder from someone else (an archive, a shared
 * folder) holding a symbolic link (`journal.jsonl` → a file elsewhere, `bindings/` → another
 * project) must not make `--resume` or `prosec cancel` write where the link leads: such a folder is
 * refused before anything is written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { FolderRuns } from "../../src/runs/folder-runs.js";
import { startViewServer } from "../../src/view/server.js";
import { prosec, startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { runManifest } from "../support/run-manifest.js";
import { temporaryFolder } from "../support/temp.js";
import { TEST_API_KEY } from "../runtime/helpers.js";

let model: FakeServer | undefined;
afterAll(async () => {
  await model?.close();
});

/** A project two folders down, and a folder beside it that holds someone's files. */
function projectAndElsewhere(): { cwd: string; elsewhere: string } {
  const root = temporaryFolder("prosec-run-links-");
  const cwd = join(root, "project");
  const elsewhere = join(root, "elsewhere");
  mkdirSync(cwd);
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "README.md"), "mine\n");
  writeFileSync(join(elsewhere, "notes.txt"), "mine\n");
  return { cwd, elsewhere };
}

describe("a run folder holding a link", () => {
  it("is refused by --resume before anything is written through it", async () => {
    const { cwd, elsewhere } = projectAndElsewhere();
    writeFileSync(
      join(cwd, "p.prose"),
      'let first = session "One"\nlet second = session "Two {first}"\noutput README = second\n',
    );
    // One answer: the second session fails, and the run waits to be resumed.
    model = await startFakeAnthropic({ script: [reply.text("first answer")] });
    const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: model.url };
    expect((await startProsec(["run", "p.prose"], cwd, env).exit).status).not.toBe(0);
    const [runId] = readdirSync(join(cwd, ".prose", "runs")) as [string];
    const dir = join(cwd, ".prose", "runs", runId);
    rmSync(join(dir, "journal.jsonl"));
    symlinkSync(join(elsewhere, "notes.txt"), join(dir, "journal.jsonl"));
    rmSync(join(dir, "bindings"), { recursive: true });
    symlinkSync(elsewhere, join(dir, "bindings"));

    model.push(reply.text("second answer"));
    const resumed = await startProsec(["run", "p.prose", "--resume", runId], cwd, env).exit;
    expect(resumed.status).toBe(EXIT.runStateUnusable);
    expect(resumed.stderr).toContain("holds a symbolic link");
    expect(readdirSync(elsewhere).sort()).toEqual(["README.md", "notes.txt"]);
    expect(readFileSync(join(elsewhere, "README.md"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(elsewhere, "notes.txt"), "utf8")).toBe("mine\n");
  });

  it("is refused by prosec cancel, which writes its mark by name", () => {
    const { cwd, elsewhere } = projectAndElsewhere();
    const runId = "20260101-000000-abcdef";
    const dir = join(cwd, ".prose", "runs", runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "run.json"), runManifest({ runId }));
    writeFileSync(join(dir, "journal.jsonl"), "");
    symlinkSync(join(elsewhere, "notes.txt"), join(dir, "cancelled"));
    const cancelled = prosec(["cancel", runId], cwd);
    expect(cancelled.status).toBe(EXIT.runStateUnusable);
    expect(cancelled.stderr).toContain("holds a symbolic link");
    expect(readFileSync(join(elsewhere, "notes.txt"), "utf8")).toBe("mine\n");
  });

  /** A run folder whose program.prose leads to someone's secret, beside the project. */
  function linkedProgram(): { cwd: string; runId: string } {
    const { cwd, elsewhere } = projectAndElsewhere();
    writeFileSync(join(elsewhere, "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY----- secret-key-bytes\n");
    const runId = "20260101-000000-abcdef";
    const dir = join(cwd, ".prose", "runs", runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "run.json"), runManifest({ runId }));
    writeFileSync(join(dir, "journal.jsonl"), "");
    symlinkSync(join(elsewhere, "id_rsa"), join(dir, "program.prose"));
    return { cwd, runId };
  }

  it("is refused by prosec view --out: the report never holds the file the link leads to", () => {
    const { cwd, runId } = linkedProgram();
    const viewed = prosec(["view", runId, "--out", "report.html"], cwd);
    expect(viewed.status).toBe(EXIT.runStateUnusable);
    expect(viewed.stderr).toContain("holds a symbolic link");
    expect(`${viewed.stdout}${viewed.stderr}`).not.toContain("secret-key-bytes");
    expect(existsSync(join(cwd, "report.html"))).toBe(false);
  });

  it("is refused by prosec view's pages and API, which never send the file the link leads to", async () => {
    const { cwd, runId } = linkedProgram();
    const server = await startViewServer(new FolderRuns(cwd));
    try {
      for (const path of [`run/${runId}`, `api/run/${runId}`]) {
        const response = await fetch(`${server.url}${path}`);
        const body = await response.text();
        expect(response.status).toBe(500);
        expect(body).toContain("holds a symbolic link");
        expect(body).not.toContain("secret-key-bytes");
      }
    } finally {
      await server.close();
    }
  });
});
