/**
 * `state.md` with a model at a real pace (issue 41): requests slower than the quiet interval (2 s)
 * must not make the run rewrite state.md once per step. The bytes the `prosec run` process writes are
 * counted by the benchmarks' preloaded counter (bench/support/count-writes.mjs), by kind of file.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const counter = fileURLToPath(new URL("../../bench/support/count-writes.mjs", import.meta.url));
const STEPS = 10;
// About the size of the program, state.md outweighs the journal's growth over the whole run.
const PROGRAM = [
  ...Array.from({ length: 80 }, (_, line) => `# A comment line of the kind a long program has, number ${line}.`),
  ...Array.from({ length: STEPS }, (_, step) => `session "Step ${step}"`),
  "",
].join("\n");

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("state.md with a slow model", () => {
  it(
    "is not rewritten at every step: what is written of it stays within a few times its size",
    { timeout: 120_000 },
    async () => {
      const cwd = temporaryFolder("prosec-state-pace-");
      writeFileSync(join(cwd, "slow.prose"), PROGRAM);
      // Each answer takes longer than the 2 s after which a quiet journal used to rewrite state.md.
      server = await startFakeAnthropic({ latencyMs: 2_500, respond: () => reply.text("done") });
      const counts = join(cwd, "written.json");
      const run = await startProsec(["run", "slow.prose"], cwd, {
        ANTHROPIC_API_KEY: TEST_API_KEY,
        ANTHROPIC_BASE_URL: server.url,
        NODE_OPTIONS: `--import ${counter}`,
        PROSEC_BENCH_WRITES: counts,
      }).exit;
      expect(run.status, run.stderr).toBe(EXIT.ok);
      expect(server.requests).toHaveLength(STEPS);
      const runs = join(cwd, ".prose", "runs");
      const state = statSync(join(runs, readdirSync(runs)[0]!, "state.md")).size;
      const written = (JSON.parse(readFileSync(counts, "utf8")) as Record<string, number>)["state.md"]!;
      // The first write, two while the journal is quiet, the last: once per step would be 11 or more.
      expect(written / state).toBeLessThan(5);
    },
  );
});
