/**
 * The one exit-code table (src/exit-codes.ts), command by command, through the built CLI: for each
 * command a representative success, usage error and failure, and a network failure where a command can
 * meet one. The DBOS commands' successes and failures need PostgreSQL: test/dbos/workers.test.ts. Run
 * state (EXIT.runStateUnusable) is test/run/run-state.slow.test.ts; Ctrl-C (EXIT.interrupted) is
 * test/run/cli-run.slow.test.ts; waiting for input (EXIT.waitingForInput) also test/run/waiting-input.slow.test.ts.
 */
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, type ExitCode } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const GOOD = 'input topic: "The topic"\noutput summary = session "Summarize {topic}"\n';
const BAD = 'output summary = session "Summarize {topic}"\n  context: nowhere\n';
const NO_DATABASE = { DBOS_SYSTEM_DATABASE_URL: "" };
const UNREACHABLE = { DBOS_SYSTEM_DATABASE_URL: "postgresql://postgres@127.0.0.1:1/prosec" };

interface Case {
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly exit: ExitCode;
  /** What the command says last (on stderr, or on stdout when stderr is empty), so the code is for the reason given. */
  readonly says: RegExp;
}

let cwd: string;
let answering: FakeServer;
let failing: FakeServer;
let closedPort: string;

beforeAll(async () => {
  cwd = temporaryFolder("prosec-exit-codes-");
  writeFileSync(join(cwd, "good.prose"), GOOD);
  writeFileSync(join(cwd, "bad.prose"), BAD);
  writeFileSync(join(cwd, "asks.prose"), `${GOOD}input approval: "Approve?"\n`);
  answering = await startFakeAnthropic({ respond: () => reply.text("a summary") });
  failing = await startFakeAnthropic({ respond: () => reply.error(400, { message: "scripted failure" }) });
  const closed = await startFakeAnthropic();
  closedPort = closed.url;
  await closed.close();
});

afterAll(async () => {
  await Promise.all([answering.close(), failing.close()]);
});

/** Runs the cases side by side; each must exit with its code for its reason. */
async function expectExits(cases: readonly Case[]): Promise<void> {
  const results = await Promise.all(cases.map((each) => startProsec(each.args, cwd, each.env).exit));
  cases.forEach((each, index) => {
    const result = results[index]!;
    const what = `prosec ${each.args.join(" ")}\n${result.stderr}`;
    expect(result.status, what).toBe(each.exit);
    expect((result.stderr.trim() || result.stdout.trim()).split("\n").at(-1), what).toMatch(each.says);
  });
}

const model = (server: () => string) => ({ ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server() });

describe("exit codes, one table for every command", () => {
  it("prosec itself: help and version succeed, a missing or unknown command is a usage error", async () => {
    const results = await Promise.all(
      [["--help"], ["--version"], [], ["frobnicate"]].map((args) => startProsec(args, cwd).exit),
    );
    expect(results.map((result) => result.status)).toEqual([EXIT.ok, EXIT.ok, EXIT.usage, EXIT.usage]);
  });

  it("check", async () => {
    await expectExits([
      { args: ["check", "good.prose"], exit: EXIT.ok, says: /^1 file checked: 0 errors, 0 warnings$/ },
      { args: ["check"], exit: EXIT.usage, says: /^prosec: Not enough non-option arguments/ },
      { args: ["check", "missing.prose"], exit: EXIT.usage, says: /^prosec: missing\.prose: no such file or folder$/ },
      { args: ["check", "bad.prose"], exit: EXIT.failed, says: /^1 file checked: 1 error, 1 warning$/ },
    ]);
  });

  it("build", async () => {
    await expectExits([
      { args: ["build", "good.prose", "--out-dir", "out"], exit: EXIT.ok, says: /^1 program: 1 written, 0 unchanged$/ },
      { args: ["build", "good.prose", "--out-dir"], exit: EXIT.usage, says: /^prosec: --out-dir needs a value$/ },
      {
        args: ["build", "bad.prose", "--out-dir", "out"],
        exit: EXIT.failed,
        says: /^1 program: 0 written, 0 unchanged, 1 error, 1 warning, nothing written$/,
      },
      {
        args: ["build", "good.prose", "--out-dir", "stale", "--check"],
        exit: EXIT.failed,
        says: /^1 program: 0 up to date, 1 stale$/,
      },
    ]);
  });

  it("run", async () => {
    await expectExits([
      {
        args: ["run", "good.prose", "-i", "topic=tides"],
        env: model(() => answering.url),
        exit: EXIT.ok,
        says: /^done in /,
      },
      {
        args: ["run", "good.prose"],
        env: model(() => answering.url),
        exit: EXIT.usage,
        says: /^prosec: missing input: --input topic=\.\.\. \(The topic\)$/,
      },
      {
        args: ["run", "good.prose", "-i", "topic=tides"],
        env: model(() => failing.url),
        exit: EXIT.failed,
        says: /^Resume with: prosec run good\.prose --resume \S+$/,
      },
      {
        args: ["run", "asks.prose", "-i", "topic=tides"],
        env: model(() => answering.url),
        exit: EXIT.waitingForInput,
        says: /^Waiting for input "approval" \(Approve\?\) at asks\.prose:3:1\. Answer with: prosec answer /,
      },
      {
        args: ["run", "good.prose", "-i", "topic=tides"],
        env: model(() => closedPort),
        exit: EXIT.network,
        says: /^Resume with: prosec run good\.prose --resume \S+$/,
      },
      {
        args: ["run", "good.prose", "-i", "topic=tides", "--budget", "0.0001"],
        env: model(() => answering.url),
        exit: EXIT.budget,
        says: /^Resume with: prosec run good\.prose --resume \S+ --budget <dollars> \(or --yes\)$/,
      },
    ]);
  });

  it("cost", async () => {
    await expectExits([
      { args: ["cost", "good.prose"], exit: EXIT.ok, says: /^Tokens assume each session's reply/ },
      { args: ["cost"], exit: EXIT.usage, says: /^prosec: Not enough non-option arguments/ },
      {
        args: ["cost", "good.prose"],
        env: { PROSEC_PRICES: "sonnet=free" },
        exit: EXIT.usage,
        says: /^prosec: PROSEC_PRICES: cannot read the price "sonnet=free"/,
      },
      { args: ["cost", "bad.prose"], exit: EXIT.failed, says: /^ {2}help: bind it first: `let nowhere = \.\.\.`$/ },
    ]);
  });

  it("test", async () => {
    const recorded = await startProsec(
      ["run", "good.prose", "-i", "topic=tides", "--json"],
      cwd,
      model(() => answering.url),
    ).exit;
    const { runId } = JSON.parse(recorded.stdout.trim().split("\n").at(-1)!) as { runId: string };
    cpSync(join(cwd, ".prose", "runs", runId), join(cwd, "goldens", "passing"), { recursive: true });
    cpSync(join(cwd, ".prose", "runs", runId), join(cwd, "goldens-changed", "failing"), { recursive: true });
    writeFileSync(
      join(cwd, "goldens-changed", "failing", "bindings", "summary.md"),
      "# summary\n\nkind: output\n\n---\n\nnot what the run said\n",
    );
    await expectExits([
      { args: ["test", "goldens"], exit: EXIT.ok, says: /^1 passed, 0 failed$/ },
      { args: ["test", "nowhere"], exit: EXIT.usage, says: /^prosec: nowhere: no such folder$/ },
      { args: ["test", "goldens-changed"], exit: EXIT.failed, says: /^0 passed, 1 failed$/ },
    ]);
  });

  it("lsp (exit after shutdown is EXIT.ok: test/lsp/diagnostics.test.ts)", async () => {
    await expectExits([
      { args: ["lsp", "--tcp"], exit: EXIT.usage, says: /^prosec: unknown option `--tcp`/ },
      {
        args: ["lsp", "--stdio"],
        exit: EXIT.failed,
        says: /^prosec lsp: the editor closed the connection without shutting the server down$/,
      },
    ]);
  });

  it("worker and submit", async () => {
    await expectExits([
      {
        args: ["worker", "good.prose", "--concurrency", "0"],
        env: UNREACHABLE,
        exit: EXIT.usage,
        says: /^prosec: --concurrency takes a whole number of at least 1$/,
      },
      {
        args: ["worker", "bad.prose"],
        env: UNREACHABLE,
        exit: EXIT.failed,
        says: /^ {2}help: bind it first: `let nowhere = \.\.\.`$/,
      },
      // With credentials: a worker without them stops before the database (test/run/cli-first-run.slow.test.ts).
      {
        args: ["worker", "good.prose"],
        env: { ...UNREACHABLE, ...model(() => answering.url) },
        exit: EXIT.network,
        says: /^prosec: cannot reach the database at postgresql:\/\/postgres@127\.0\.0\.1:1\/prosec/,
      },
      {
        args: ["submit", "good.prose"],
        env: UNREACHABLE,
        exit: EXIT.usage,
        says: /^prosec: missing input: --input topic=/,
      },
      {
        args: ["submit", "good.prose", "-i", "topic=tides"],
        env: UNREACHABLE,
        exit: EXIT.network,
        says: /^prosec: cannot reach the database/,
      },
    ]);
  });

  it("status, result and migrate", async () => {
    await expectExits([
      { args: ["status", "run-1"], env: NO_DATABASE, exit: EXIT.usage, says: /^prosec: set DBOS_SYSTEM_DATABASE_URL/ },
      { args: ["status", "run-1"], env: UNREACHABLE, exit: EXIT.network, says: /^prosec: cannot reach the database/ },
      {
        args: ["result", "run-1", "--timeout", "-1"],
        env: UNREACHABLE,
        exit: EXIT.usage,
        says: /^prosec: --timeout takes a number of seconds, 0 or more$/,
      },
      { args: ["migrate", "extra"], env: UNREACHABLE, exit: EXIT.usage, says: /^prosec: unexpected argument `extra`$/ },
      { args: ["migrate"], env: UNREACHABLE, exit: EXIT.network, says: /^prosec: cannot reach the database/ },
    ]);
  });

  it("answer and cancel (a waiting run: test/run/waiting-input.slow.test.ts, on DBOS: test/dbos/workers.test.ts)", async () => {
    await expectExits([
      {
        args: ["answer", "run-1"],
        env: UNREACHABLE,
        exit: EXIT.usage,
        says: /^prosec: Not enough non-option arguments/,
      },
      {
        args: ["answer", "run-1", "approval"],
        env: UNREACHABLE,
        exit: EXIT.usage,
        says: /^prosec: approval: write it as name=value/,
      },
      {
        args: ["answer", "run-1", "approval=yes"],
        env: NO_DATABASE,
        exit: EXIT.usage,
        says: /^prosec: there is no run run-1 in \.prose\/runs here, and DBOS_SYSTEM_DATABASE_URL is not set/,
      },
      {
        args: ["answer", "run-1", "approval=yes"],
        env: UNREACHABLE,
        exit: EXIT.network,
        says: /^prosec: cannot reach the database/,
      },
      { args: ["cancel", "run-1"], env: UNREACHABLE, exit: EXIT.network, says: /^prosec: cannot reach the database/ },
    ]);
  });
});
