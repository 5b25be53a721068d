/**
 * `prosec run --sandbox`: the built CLI, a program whose agent has an unrestricted shell, and a fake
 * model that asks where HOME is. Inside the sandbox HOME is the scratch one; `--sandbox off` runs the
 * command as the user; a mode that does not exist is a usage error.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { prosec, startProsec } from "../support/cli.js";
import { waitFor } from "../support/wait.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const PROGRAM =
  'agent shell:\n  model: sonnet\n  permissions:\n    bash: allow\n\nsession: shell\n  prompt: "Where is home?"\n';

let model: FakeServer | undefined;
const folders: string[] = [];
beforeAll(() => void ensureBubblewrap());
afterEach(async () => {
  await model?.close();
  model = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function homeSeen(args: readonly string[]): Promise<string> {
  const cwd = temporaryFolder("prosec-sandbox-cli-");
  folders.push(cwd);
  writeFileSync(join(cwd, "home.prose"), PROGRAM);
  model = await startFakeAnthropic({
    script: [reply.toolUse([{ name: "run_command", input: { command: "echo HOME=$HOME" } }]), reply.text("found")],
  });
  const { exit } = startProsec(["run", "home.prose", ...args], cwd, {
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: model.url,
  });
  const result = await exit;
  expect(result.status, result.stderr).toBe(0);
  const answer = JSON.stringify(model.requests[1]?.body?.messages.at(-1));
  return /HOME=([^\\"]*)/.exec(answer)?.[1] ?? "";
}

describe("prosec run --sandbox", () => {
  it("runs an unrestricted shell inside the sandbox by default, and as the user with --sandbox off", async () => {
    expect(await homeSeen([])).toBe("/tmp/home");
    expect(await homeSeen(["--sandbox", "off"])).not.toBe("/tmp/home");
  });

  it("with --sandbox off, a command's processes do not outlive a kill -9 of prosec", { timeout: 180_000 }, async () => {
    const cwd = temporaryFolder("prosec-sandbox-cli-");
    folders.push(cwd);
    writeFileSync(join(cwd, "home.prose"), PROGRAM);
    model = await startFakeAnthropic({
      script: [
        reply.toolUse([
          {
            name: "run_command",
            input: { command: "echo $$ > shell.pid; sleep 300 & echo $! > background.pid; wait" },
          },
        ]),
        reply.text("found"),
      ],
    });
    const run = startProsec(["run", "home.prose", "--sandbox", "off"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: model.url,
    });
    const pids: number[] = [];
    try {
      const pidFile = join(cwd, "background.pid");
      await waitFor(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"),
        "the command to start its background process",
      );
      pids.push(Number(readFileSync(join(cwd, "shell.pid"), "utf8")), Number(readFileSync(pidFile, "utf8")));
      expect(pids.every(alive)).toBe(true);
      run.child.kill("SIGKILL");
      await run.exit;
      // The guard ends them as soon as prosec is gone (at once; the deadline is for a loaded machine).
      await waitFor(
        () => !pids.some(alive),
        () => `the command's processes ${pids.filter(alive).join(", ")} to end`,
      );
    } finally {
      run.child.kill("SIGKILL");
      for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
    }
  });

  it("refuses a mode that does not exist", () => {
    const result = prosec(["run", "home.prose", "--sandbox", "sometimes"]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/sandbox/);
  });
});

/** Whether `pid` is a live process (a zombie, ended but not yet reaped, is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
