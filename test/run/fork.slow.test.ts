/**
 * `prosec run FILE --resume ID --from LINE` and `prosec runs show ID`, as a user runs them: a fork is
 * a new run folder that reuses the steps recorded before LINE, the original left byte for byte as it
 * was; `runs show` lists a run's steps with key, line, kind, status, fingerprint, tokens and cost; and
 * resuming an edited program says what it reused.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { askedText, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM = `let a = session "Research tides"
let b = session "Outline a report"
  context: a
output c = session "Write the report"
  context: b
`;

const servers: FakeServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function prosec(cwd: string, args: readonly string[]) {
  const server = await startFakeAnthropic({ respond: deterministicModel() });
  servers.push(server);
  const result = await startProsec(args, cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url }).exit;
  return { ...result, asked: server.requests.map((request) => askedText(request).split("\n").at(-1)) };
}

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string, prefix: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else files[`${prefix}${name}`] = readFileSync(path).toString("base64");
    }
  };
  walk(dir, "");
  return files;
}

const runIds = (cwd: string): string[] => readdirSync(join(cwd, ".prose", "runs")).sort();

describe("forks, runs show and edited resumes through the CLI", () => {
  it("--from forks into a new folder reusing the steps before the line; the original stays byte for byte", async () => {
    const cwd = temporaryFolder("prosec-fork-");
    writeFileSync(join(cwd, "report.prose"), PROGRAM);
    const first = await prosec(cwd, ["run", "report.prose", "--json"]);
    expect(first.status, first.stderr).toBe(EXIT.ok);
    const [original] = runIds(cwd);
    const before = snapshot(join(cwd, ".prose", "runs", original!));

    const fork = await prosec(cwd, ["run", "report.prose", "--resume", original!, "--from", "4"]);
    expect(fork.status, fork.stderr).toBe(EXIT.ok);
    expect(fork.asked).toEqual(["Write the report"]);
    const forked = runIds(cwd).find((id) => id !== original)!;
    expect(fork.stderr).toContain(
      `forked run ${original} into ${forked}: reusing the 2 steps it recorded before line 4`,
    );
    expect(snapshot(join(cwd, ".prose", "runs", original!))).toEqual(before);
    const manifest = JSON.parse(readFileSync(join(cwd, ".prose", "runs", forked, "run.json"), "utf8")) as object;
    expect(manifest).toMatchObject({ runId: forked, forkedFrom: { runId: original, line: 4 } });

    const shown = await prosec(cwd, ["runs", "show", forked, "--format", "json"]);
    expect(shown.status, shown.stderr).toBe(EXIT.ok);
    const steps = JSON.parse(shown.stdout) as Array<Record<string, unknown>>;
    expect(steps.map((step) => [step["key"], step["line"], step["kind"], step["status"]])).toEqual([
      ["/session:a#0", 1, "session", "reused"],
      ["/session:b#0", 2, "session", "reused"],
      ["/session:c#0", 4, "session", "finished"],
    ]);
    for (const step of steps) {
      expect(step["fingerprint"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/);
      expect(step["tokens"]).toBeGreaterThan(0);
      expect(step["cost"]).toBeGreaterThan(0);
    }
    const table = await prosec(cwd, ["runs", "show", original!]);
    expect(table.stdout.split("\n")[0]).toMatch(/^KEY\s+LINE\s+KIND\s+STATUS\s+FINGERPRINT\s+TOKENS\s+COST$/);
    expect(table.stdout).toMatch(/\/session:c#0\s+4\s+session\s+finished\s+[0-9a-f-]{26}\s+\d+\s+\$0\.\d+/);

    const refused = await prosec(cwd, ["run", "report.prose", "--from", "2"]);
    expect(refused.status).toBe(EXIT.usage);
    expect(refused.stderr).toContain("--from LINE starts a new run from the beginning of another");
  });

  it("--resume of an edited program says what it reused and re-ran; --strict refuses it", async () => {
    const cwd = temporaryFolder("prosec-edit-");
    writeFileSync(join(cwd, "report.prose"), PROGRAM);
    expect((await prosec(cwd, ["run", "report.prose"])).status).toBe(EXIT.ok);
    const [id] = runIds(cwd);
    writeFileSync(join(cwd, "report.prose"), PROGRAM.replace("Write the report", "Write a short report"));
    const strict = await prosec(cwd, ["run", "report.prose", "--resume", id!, "--strict"]);
    expect(strict.status).not.toBe(EXIT.ok);
    expect(strict.stderr).toContain("--strict resumes only the very program that ran");
    const resumed = await prosec(cwd, ["run", "report.prose", "--resume", id!]);
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    expect(resumed.asked).toEqual(["Write a short report"]);
    expect(resumed.stderr).toContain("reused 2 steps; re-running 1 from line 4 (prompt changed)");
  });
});
