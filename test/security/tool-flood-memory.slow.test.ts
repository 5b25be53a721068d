/**
 * The memory bound on tool output, through the path users take: `prosec run` (the built CLI, a child
 * process) with a model that asks for 200 reads of a 200 KB file per turn for 8 turns. Its peak resident
 * memory (VmHWM, read at exit by bench/support/vmhwm.mjs) stays under 300 MB and the run finishes.
 * bench/tool-output.bench.mjs reports the figure.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { repositoryRoot, startProsec } from "../support/cli.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

let model: FakeServer | undefined;
let cwd: string | undefined;
afterEach(async () => {
  await model?.close();
  if (cwd !== undefined) rmSync(cwd, { recursive: true, force: true });
});

describe("a model flooding its session with tool output", () => {
  it("200 reads of 200 KB per turn, 8 turns: `prosec run` finishes under 300 MB (VmHWM)", async () => {
    cwd = temporaryFolder("prosec-tool-flood-");
    writeFileSync(join(cwd, "big.txt"), "0123456789abcdef".repeat((200 * 1024) / 16));
    writeFileSync(join(cwd, "flood.prose"), 'session "Read big.txt, again and again"\n');
    const flood = () =>
      reply.toolUse(Array.from({ length: 200 }, () => ({ name: "read_file", input: { path: "big.txt" } })));
    model = await startFakeAnthropic({
      script: [...Array.from({ length: 8 }, flood), reply.text("read it all")],
      keepBodies: false,
    });
    const hwmFile = join(cwd, "vmhwm");
    const loader = pathToFileURL(join(repositoryRoot, "bench/support/vmhwm.mjs")).href;
    const { exit } = startProsec(["run", "flood.prose"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: model.url,
      NODE_OPTIONS: `--import=${loader}`,
      PROSEC_VMHWM_FILE: hwmFile,
    });
    const result = await exit;
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("read it all");
    expect(model.requests).toHaveLength(9);
    const peakMb = Number(readFileSync(hwmFile, "utf8"));
    console.log(`tool flood: prosec run peaked at ${peakMb.toFixed(0)} MB (VmHWM)`);
    expect(peakMb).toBeLessThan(300);
  });
});
