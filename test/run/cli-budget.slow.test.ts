/**
 * `prosec run --budget`, `--max-calls` and `--yes` as a user runs them: child processes against the
 * fake Messages API (several runs of a program in a row, hence a slow test).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { type FakeReply, type FakeServer } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();

/** prosec with the fake server as its model. */
function prosec(cwd: string, server: FakeServer, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
  const started = startProsec(args, cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, ...env });
  return {
    exit: started.exit.then((result) => ({ code: result.status, stdout: result.stdout, stderr: result.stderr })),
  };
}

function onlyRun(cwd: string): string {
  const runs = readdirSync(join(cwd, ".prose", "runs"));
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

describe("prosec run with a budget", () => {
  it(
    "--budget: refuses a program whose bound is over it (exit 5), stops a run started with --yes before it crosses, and the resumed run goes on",
    { timeout: 60_000 },
    async () => {
      // Output at $10 per million tokens, input free: a reply of 1,000 tokens costs $0.01. A request's
      // max_tokens (the server's 8,192) is fitted to its share of the budget, here the floor of 1,024
      // tokens: its worst case is $0.01024.
      const env = { PROSEC_PRICES: "claude-sonnet-5-5=0/10" };
      const server = await serve(
        () => ({ kind: "message", content: [{ type: "text", text: "word ".repeat(800) }] }) satisfies FakeReply,
      );
      const cwd = temporaryFolder("prosec-cli-run-");
      writeFileSync(
        join(cwd, "three.prose"),
        'let a = session "One"\nlet b = session "Two"\noutput c = session "Three"\n',
      );
      const refused = await prosec(cwd, server, ["run", "three.prose", "--budget", "0.02"], env).exit;
      expect(refused.code).toBe(EXIT.budget);
      expect(refused.stderr).toContain(
        "The program's bound, about $0.03 (3 model calls at most), is over the budget of $0.02.",
      );
      const runId = onlyRun(cwd);
      expect(refused.stderr).toContain(
        `Resume with: prosec run three.prose --resume ${runId} --budget <dollars> (or --yes)`,
      );
      expect(server.requests).toHaveLength(0);

      const stopped = await prosec(
        cwd,
        server,
        ["run", "three.prose", "--resume", runId, "--budget", "0.025", "--yes"],
        env,
      ).exit;
      expect(stopped.code).toBe(EXIT.budget);
      expect(stopped.stderr).toMatch(
        /The next model request could cost up to \$0\.0102; with \$0\.02\d* spent that could exceed the budget of \$0\.025/,
      );
      expect(server.requests).toHaveLength(2);
      expect(readFileSync(join(cwd, ".prose", "runs", runId, "state.md"), "utf8")).toContain("status: interrupted");

      const finished = await prosec(
        cwd,
        server,
        ["run", "three.prose", "--resume", runId, "--budget", "1", "--json"],
        env,
      ).exit;
      expect(finished.code, finished.stderr).toBe(0);
      expect(server.requests).toHaveLength(3);
      expect((await prosec(cwd, server, ["run", "three.prose", "--max-calls", "0"], env).exit).code).toBe(EXIT.usage);
    },
  );

  it("without a budget, says before starting that a program has no bound", { timeout: 30_000 }, async () => {
    const server = await serve(deterministicModel(() => true));
    const cwd = temporaryFolder("prosec-cli-run-");
    writeFileSync(join(cwd, "forever.prose"), 'loop until **the work is done**:\n  session "Work"\n');
    const exit = await prosec(cwd, server, ["run", "forever.prose"]).exit;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain(
      "\nThis program's cost has no bound (line 1: loop without (max: N)). Cap it with --budget or --max-calls.\n",
    );
  });
});
