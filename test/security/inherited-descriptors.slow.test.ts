/**
 * A prosec started with descriptors left open by whoever started it (a shell's `9</some/folder`, a
 * pipe an editor or a CI runner did not mark close-on-exec) must not hand them to a model's command.
 * bwrap passes every descriptor it inherits into the sandbox, and a folder's leads out of it: through
 * `/proc/self/fd/N/` a command writes beside the folder and reads its parent. Each such descriptor is
 * `/dev/null` in the command, sandboxed or not.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";
import { TEST_API_KEY } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `agent shell:
  permissions:
    bash: allow

output seen = session: shell
  prompt: "Look around"
`;

/** The descriptors prosec is given besides its standard ones: a folder outside the project, and a log file. */
const FOLDER_FD = 40;
const LOG_FD = 41;

/** Lists its descriptors, then tries each way out through the two it may have inherited. */
const COMMAND = [
  "ls -l /proc/self/fd/",
  `ls /proc/self/fd/${FOLDER_FD}/.. 2>&1`,
  `echo escaped > /proc/self/fd/${FOLDER_FD}/escaped.txt`,
  `echo written > /proc/self/fd/${LOG_FD}`,
  "echo listed",
].join("; ");

let model: FakeServer | undefined;
beforeAll(() => void ensureBubblewrap());
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function commandOutput(sandbox: "required" | "off"): Promise<{ output: string; outside: string; log: string }> {
  const root = temporaryFolder("prosec-inherited-fds-");
  const cwd = join(root, "project");
  const outside = join(root, "outside");
  mkdirSync(cwd);
  mkdirSync(outside);
  writeFileSync(join(root, "secret.txt"), "someone's secret\n");
  const log = join(root, "editor.log");
  writeFileSync(log, "the editor's log\n");
  writeFileSync(join(cwd, "look.prose"), PROGRAM);
  model = await startFakeAnthropic({
    script: [reply.toolUse([{ name: "run_command", input: { command: COMMAND } }]), reply.text("done")],
  });
  const folder = openSync(outside, "r");
  const logFile = openSync(log, "a");
  const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe"];
  while (stdio.length < FOLDER_FD) stdio.push("ignore");
  stdio.push(folder, logFile);
  let child;
  try {
    // The child's descriptors 40 and 41 are copies without close-on-exec, as a parent leaves them.
    child = spawn(process.execPath, [bin, "run", "look.prose", "--sandbox", sandbox], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: model.url },
      stdio,
    });
  } finally {
    closeSync(folder);
    closeSync(logFile);
  }
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  expect(status, stderr).toBe(0);
  const result = model.requests[1]?.body?.messages.at(-1)?.content as Array<{ type: string; content?: string }>;
  const output = result.find((block) => block.type === "tool_result")?.content ?? "";
  expect(output).toContain("listed");
  return { output, outside, log: readFileSync(log, "utf8") };
}

describe("descriptors prosec inherited", () => {
  for (const sandbox of ["required", "off"] as const)
    it(`never reach a model's command (--sandbox ${sandbox})`, async () => {
      const { output, outside, log } = await commandOutput(sandbox);
      expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
      expect(log).toBe("the editor's log\n");
      expect(output).not.toContain("secret.txt");
      expect(output).not.toContain(outside);
      expect(output).toMatch(new RegExp(`${FOLDER_FD} -> /dev/null`));
    });
});
