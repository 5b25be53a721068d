/**
 * `prosec eval` as users run it, against the fake Messages API: rates and intervals for known
 * answers, the baseline rule as an exit code, the HTML page, --budget refused before the first
 * request, a kill -9 mid-eval then --resume that pays for no finished case again, every case an error
 * (exit 10), and `prosec runs` folding an eval's runs.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { judgmentCondition } from "../support/requests.js";
import { startProsec, type CliResult } from "../support/cli.js";
import { requireBuiltRuntime } from "../support/built-runtime.js";
import { temporaryFolder } from "../support/temp.js";
import { TEST_API_KEY } from "../runtime/helpers.js";

const PROGRAM = `input article: "The article"
input risk: "A risk the summary must name"

let summary = session "Summarise in two sentences: {article}"

assert **the summary names {risk}**:
  "names the risk"

output result = summary
`;

let server: FakeServer;
/** A session whose article holds this text is left unanswered (the kill -9 test). */
let hangOn: string | undefined;

/** Sessions summarise; a risk named `pass-*` is named; an article saying `refuse` is refused. */
function respond(request: FakeRequest): FakeReply {
  if (request.body?.tool_choice !== undefined) {
    const condition = judgmentCondition(request);
    return reply.toolUse([
      { name: "answer", input: { answer: condition.includes("pass-"), reason: `read: ${condition}` } },
    ]);
  }
  const prompt = lastUserText(request);
  if (hangOn !== undefined && prompt.includes(hangOn)) return reply.hang();
  if (prompt.includes("refuse")) return reply.refusal("I cannot summarise this.");
  return reply.text(`summary of ${prompt.split("\n").at(-1)}`);
}

beforeAll(async () => {
  requireBuiltRuntime();
  server = await startFakeAnthropic({ respond });
});
afterAll(async () => server.close());

function project(cases: readonly { name: string; article: string; risk: string }[]): string {
  const cwd = temporaryFolder("prosec-eval-cli-");
  writeFileSync(join(cwd, "summary.eval.prose"), PROGRAM);
  writeCases(cwd, "cases.jsonl", cases);
  return cwd;
}

function writeCases(
  cwd: string,
  file: string,
  cases: readonly { name: string; article: string; risk: string }[],
): void {
  writeFileSync(
    join(cwd, file),
    cases.map(({ name, article, risk }) => JSON.stringify({ name, inputs: { article, risk } })).join("\n"),
  );
}

/** `count` cases, the first `passing` of which name their risk. */
function casesOf(count: number, passing: number, prefix = "case"): { name: string; article: string; risk: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `${prefix}-${index + 1}`,
    article: `article ${prefix}-${index + 1}`,
    risk: index < passing ? `pass-${index}` : `fail-${index}`,
  }));
}

function evalIn(cwd: string, args: readonly string[]): Promise<CliResult> {
  return startProsec(["eval", ...args], cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url }).exit;
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

describe("prosec eval", () => {
  it("reports rates with Wilson intervals, writes the HTML page, and gates on the baseline", async () => {
    const cwd = project(casesOf(10, 10));
    const base = await evalIn(cwd, [
      "summary.eval.prose",
      "--cases",
      "cases.jsonl",
      "--save-baseline",
      "base.json",
      "--json",
    ]);
    expect(base.status, base.stderr).toBe(EXIT.ok);
    const report = JSON.parse(base.stdout) as {
      asserts: { id: string; passes: number; trials: number; low: number; high: number }[];
      cases: { runId: string }[];
    };
    expect(report.asserts.map((a) => [a.id, a.passes, a.trials, round(a.low), a.high])).toEqual([
      ["names the risk", 10, 10, 0.7225, 1],
    ]);
    // Each case is a session and a judgment: 20 requests.
    expect(server.requests.length).toBeGreaterThanOrEqual(20);

    // 3/10: its upper bound (0.6032) is below the baseline's lower bound (0.7225): exit 1, and the table says so.
    writeCases(cwd, "worse.jsonl", casesOf(10, 3, "worse"));
    const worse = await evalIn(cwd, [
      "summary.eval.prose",
      "--cases",
      "worse.jsonl",
      "--baseline",
      "base.json",
      "--html",
      "report.html",
    ]);
    expect(worse.status, worse.stderr).toBe(EXIT.failed);
    expect(worse.stdout).toContain("names the risk          line 6  3/10  30% (11%–60%)");
    expect(worse.stdout).toContain(
      "✗ names the risk: fell 70 points: its upper bound 60% is below the baseline's lower bound 72%",
    );
    expect(worse.stdout).toMatch(/✗ names the risk — the judge: no \(read: the summary names fail-3\)/);
    const page = readFileSync(join(cwd, "report.html"), "utf8");
    expect(page).toContain("Content-Security-Policy");
    expect(page).not.toMatch(/<script(?! type="application\/json")/);
    expect(page).toMatch(/Open its run: <code>prosec view \d{8}-\d{6}-[0-9a-f]{6}<\/code>/);
    expect(page).toContain("the judge: no — read: the summary names fail-3");

    // 8/10 is within the margins (upper bound 0.9433): exit 0.
    writeCases(cwd, "close.jsonl", casesOf(10, 8, "close"));
    const close = await evalIn(cwd, ["summary.eval.prose", "--cases", "close.jsonl", "--baseline", "base.json"]);
    expect(close.status, close.stderr).toBe(EXIT.ok);
    expect(close.stdout).toContain("· names the risk: fell 20 points, within the intervals");

    // `prosec runs` folds each eval into one line; --all lists its runs.
    const runs = await startProsec(["runs"], cwd).exit;
    const lines = runs.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).every((line) => line.includes("eval: 10/10 runs complete"))).toBe(true);
    const all = await startProsec(["runs", "--all"], cwd).exit;
    expect(all.stdout.trim().split("\n")).toHaveLength(31);
  });

  it("refuses a --budget below the eval's bound before the first request", async () => {
    const cwd = project(casesOf(6, 6));
    const before = server.requests.length;
    const refused = await evalIn(cwd, ["summary.eval.prose", "--cases", "cases.jsonl", "--budget", "0.01"]);
    expect(refused.status).toBe(EXIT.budget);
    expect(refused.stderr).toMatch(
      /The eval's bound, about \$[\d.]+ for 6 cases \(24 model calls at most\), is over the budget of \$0\.01/,
    );
    expect(server.requests.length).toBe(before);
    expect(existsSync(join(cwd, ".prose"))).toBe(false);
  });

  it("counts a case that stops on something else as an error; every case an error is exit 10", async () => {
    const cwd = project([
      { name: "refused", article: "refuse this", risk: "pass-1" },
      { name: "also refused", article: "refuse that", risk: "pass-2" },
    ]);
    const result = await evalIn(cwd, ["summary.eval.prose", "--cases", "cases.jsonl"]);
    expect(result.status, result.stderr).toBe(EXIT.evalAllErrors);
    expect(result.stdout).toContain("2 cases · 0 scored, 2 errors");
    expect(result.stdout).toContain('Errors (neither passed nor failed):\n  "refused" · run ');
  });

  it("after kill -9 mid-eval, --resume pays for no finished case again", async () => {
    const cases = casesOf(6, 4, "k");
    const cwd = project(cases);
    hangOn = "article k-4";
    const before = server.requests.length;
    const started = startProsec(["eval", "summary.eval.prose", "--cases", "cases.jsonl", "--concurrency", "1"], cwd, {
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: server.url,
    });
    try {
      // Cases run one at a time: three finished (two requests each), the fourth's session waits.
      await server.waitForRequests(before + 7);
      expect(lastUserText(server.requests[before + 6]!)).toContain("article k-4");
    } finally {
      started.child.kill("SIGKILL");
      await started.exit;
    }
    hangOn = undefined;
    const [evalId] = readdirSync(join(cwd, ".prose", "evals"));
    const results = readFileSync(join(cwd, ".prose", "evals", evalId!, "results.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(results.map((line) => (JSON.parse(line) as { case: string }).case)).toEqual(["k-1", "k-2", "k-3"]);

    const resumedFrom = server.requests.length;
    const resumed = await evalIn(cwd, ["--resume", evalId!, "--json"]);
    expect(resumed.status, resumed.stderr).toBe(EXIT.ok);
    const asked = server.requests.slice(resumedFrom).map((request) => JSON.stringify(request.body));
    for (const done of ["k-1", "k-2", "k-3"])
      expect(asked.filter((body) => body.includes(`article ${done}`))).toEqual([]);
    // The three cases left: a session and a judgment each.
    expect(asked).toHaveLength(6);
    // Nor were the finished cases run again (their runs would have replayed for free): only the three left ran.
    expect(resumed.stderr.match(/^[✓✗!] k-\d/gm)?.sort()).toEqual(["✓ k-4", "✗ k-5", "✗ k-6"]);
    const report = JSON.parse(resumed.stdout) as { finished: number; overall: { passes: number; trials: number } };
    expect(report.finished).toBe(6);
    expect(report.overall).toMatchObject({ passes: 4, trials: 6 });
  });
});
