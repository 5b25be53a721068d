/**
 * Issue 38, class 12 and the two ways bubblewrap can be missing: `prosec run` (the built CLI) probes
 * bwrap only for an agent that may run commands, and its notice tells "not installed" from "cannot
 * create namespaces here". The probe is seen through a `bwrap` first on PATH that logs each call and
 * runs the real one; "cannot create namespaces" is real too: the CLI runs inside an outer bwrap
 * whose user namespace forbids nested ones (`--disable-userns`).
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { bin, startProsec, type CliResult } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

/** A program whose agent has `bash:` as given, or no permissions at all (the default, `prompt`). */
const program = (bash: string | undefined): string =>
  bash === undefined
    ? `agent worker:\n  model: sonnet\n\nsession: worker\n  prompt: "Say hi"\n`
    : `agent worker:\n  model: sonnet\n  permissions:\n    bash: ${bash}\n\nsession: worker\n  prompt: "Say hi"\n`;

let bwrap = "";
let model: FakeServer | undefined;
beforeAll(() => void (bwrap = ensureBubblewrap()));
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** A folder with `program.prose` and a logging `bwrap` wrapper in `bin/`. */
function project(bash: string | undefined): { cwd: string; log: string; path: string } {
  const cwd = temporaryFolder("prosec-probe-");
  writeFileSync(join(cwd, "program.prose"), program(bash));
  mkdirSync(join(cwd, "bin"));
  const log = join(cwd, "bwrap.log");
  writeFileSync(join(cwd, "bin/bwrap"), `#!/bin/sh\necho "$*" >> ${log}\nexec ${bwrap} "$@"\n`);
  chmodSync(join(cwd, "bin/bwrap"), 0o755);
  return { cwd, log, path: `${join(cwd, "bin")}:${process.env["PATH"] ?? ""}` };
}

describe("prosec run probes bubblewrap only when an agent may run commands", () => {
  it("an agent that cannot run commands (no permissions, nobody to ask) starts no bwrap; bash: allow probes once", async () => {
    const denied = project(undefined);
    model = await startFakeAnthropic({ script: [reply.text("hi"), reply.text("hi")] });
    const env = { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: model.url };
    const first = await startProsec(["run", "program.prose"], denied.cwd, { ...env, PATH: denied.path }).exit;
    expect(first.status, first.stderr).toBe(0);
    expect(existsSync(denied.log)).toBe(false);

    const allowed = project("allow");
    const second = await startProsec(["run", "program.prose"], allowed.cwd, { ...env, PATH: allowed.path }).exit;
    expect(second.status, second.stderr).toBe(0);
    expect(readFileSync(allowed.log, "utf8").trim().split("\n")).toHaveLength(1);
    const tools = (model.requests[1]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(tools).toContain("run_command");
  });
});

describe("the notice when bubblewrap cannot run", () => {
  it("not installed: says how to install it or opt out, and run_command is not offered", async () => {
    const { cwd } = project("allow");
    model = await startFakeAnthropic({ script: [reply.text("hi")] });
    const result = await startProsec(["run", "program.prose"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: model.url,
      PATH: "/nonexistent",
    }).exit;
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/bubblewrap is not installed .*apt-get install bubblewrap.*--sandbox auto/);
    const tools = (model.requests[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(tools).not.toContain("run_command");
  });

  it("cannot create namespaces (a container's seccomp, AppArmor): says so, with what to do", async () => {
    const { cwd } = project("allow");
    model = await startFakeAnthropic({ script: [reply.text("hi")] });
    const child = spawn(
      bwrap,
      [
        "--dev-bind",
        "/",
        "/",
        "--unshare-user",
        "--disable-userns",
        "--",
        process.execPath,
        bin,
        "run",
        "program.prose",
      ],
      {
        cwd,
        env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: model.url },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const result = await new Promise<CliResult>((resolve) =>
      child.on("close", (status) => resolve({ status, stdout: "", stderr })),
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/bubblewrap cannot create namespaces here .*seccomp.*AppArmor/);
    expect(result.stderr).not.toMatch(/not installed/);
  });
});
