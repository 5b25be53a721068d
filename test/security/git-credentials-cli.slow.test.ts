/**
 * `prosec run` in a checkout as `actions/checkout` leaves it (the job's token in `.git/config`): a
 * hostile model asks for the config through `read_file` and through a sandboxed `cat` and `git config
 * -l`; what comes back to it holds no token, and `git log` still works. Slow: the built CLI.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { startProsec } from "../support/cli.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const TOKEN = "ghs_CANARYTOKEN0123456789";
const PROGRAM =
  'agent shell:\n  model: sonnet\n  permissions:\n    bash: allow\n\nsession: shell\n  prompt: "Look around."\n';

let model: FakeServer | undefined;
beforeAll(() => void ensureBubblewrap());
afterEach(async () => {
  await model?.close();
  model = undefined;
});

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@b", ...args], { cwd, stdio: "ignore" });
}

describe("prosec run in a checkout that keeps a token", () => {
  it("gives the model no token by read_file or by a command, and git still works", async () => {
    const cwd = temporaryFolder("prosec-gitcred-cli-");
    writeFileSync(join(cwd, "look.prose"), PROGRAM);
    git(cwd, "init", "-q");
    git(cwd, "add", "look.prose");
    git(cwd, "commit", "-q", "-m", "first commit");
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
    git(cwd, "config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${basic}`);
    git(cwd, "remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/o/r.git`);
    model = await startFakeAnthropic({
      script: [
        reply.toolUse([
          { name: "read_file", input: { path: ".git/config" } },
          { name: "run_command", input: { command: "cat .git/config; git config -l; git log --oneline" } },
        ]),
        reply.text("done"),
      ],
    });
    const { exit } = startProsec(["run", "look.prose"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: model.url,
    });
    const result = await exit;
    expect(result.status, result.stderr).toBe(0);
    const answer = JSON.stringify(model.requests[1]?.body?.messages.at(-1));
    expect(answer).toContain("first commit");
    expect(answer).toContain("https://github.com/o/r.git");
    expect(answer).not.toContain(TOKEN);
    expect(answer).not.toContain(basic);
  });
});
