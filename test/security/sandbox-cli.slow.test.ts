/**
 * `prosec run --sandbox`: the built CLI, a program whose agent has an unrestricted shell, and a fake
 * model that asks where HOME is. Inside the sandbox HOME is the scratch one; `--sandbox off` runs the
 * command as the user; a mode that does not exist is a usage error.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { prosec, startProsec } from "../support/cli.js";
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

  it("refuses a mode that does not exist", () => {
    const result = prosec(["run", "home.prose", "--sandbox", "sometimes"]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/sandbox/);
  });
});
