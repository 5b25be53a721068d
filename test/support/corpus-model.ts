/**
 * The scripted model the corpus programs run against (test/e2e/corpus.test.ts, bench/cost.bench.mjs),
 * and what each program is given:
 *
 * - sessions reply with a two-item markdown list (so `for x in result` parses it without a model
 *   call), or `Yes.` when the task asks for a yes or no;
 * - a judgment looks its condition up in the source and answers by the construct it belongs to. A loop's
 *   condition answers from its evidence (the trail of earlier results and the named values, everything
 *   before `Condition:`), as a model would: the first time it is asked for a loop it sees no progress
 *   (`loop until` answers no, `loop while` yes); later it answers that the loop is done (`until` yes,
 *   `while` no) once its evidence differs from the previous time it was asked, and keeps the loop going
 *   while nothing it can see has changed (a loop whose judge sees no change in 12 asks is reported
 *   stuck: without the trail, 44-run-endpoint-ux-test's `loop until` with no `max` would never end).
 *   Any other condition (`if`, `elif`, block conditions) answers no, yes, no ... counting how often it
 *   was asked;
 * - a choice takes the first option; extractions answer `["a", "b"]` for a list, `true` for yes/no,
 *   `"value"` for a field and `"value"` for each of several fields read from one text.
 *
 * Imports nothing but the fake server's modules, so the benchmark can load it transpiled.
 */
import { askedText, lastUserText, reply, type FakeReply, type FakeRequest } from "./fake-anthropic.js";
import { callKind, choiceOptions, fieldsAsked, firstUserText, judgmentCondition } from "./requests.js";

export interface Scenario {
  /** Values for the program's inputs, both the parameters and the inputs asked for later (`onInput`). */
  readonly inputs?: Readonly<Record<string, string>>;
  /** Sessions whose first user message contains one of these texts fail with a non-retryable 400. */
  readonly failSessions?: readonly string[];
  /** The reason of the program's own `throw` the run is expected to end with. */
  readonly throws?: string;
  /** Outputs bound only on paths this run does not take: present, but null. */
  readonly unboundOutputs?: readonly string[];
}

/** What each corpus program is given, and how its run ends. */
export const corpusScenarios: Readonly<Record<string, Scenario>> = {
  "22-error-handling.prose": { throws: "Validation failed: missing required fields" },
  // Two `loop (max: 1000)` patrols run in a `parallel (on-fail: "continue")`: the patrol agents' wait
  // sessions fail once (a 400), which ends each patrol after its first round, as a crashed patrol would.
  "28-gas-town.prose": {
    failSessions: ["Read backoff from patrol-state.json and wait", "Wait 5 minutes before next Deacon check"],
  },
  "29-captains-chair.prose": {
    inputs: {
      task: "Add rate limiting to the public API",
      codebase_context: "An Express app; routes in src/routes, middleware in src/middleware",
    },
  },
  "30-captains-chair-simple.prose": { inputs: { task: "Add a dark mode toggle to the settings page" } },
  "31-captains-chair-with-memory.prose": {
    inputs: { task: "Migrate the session store to Redis", past_learnings: "Integration tests need a running Redis" },
  },
  "34-content-pipeline.prose": { inputs: { topic: "Zero-downtime database migrations", audience: "developers" } },
  "35-feature-factory.prose": {
    inputs: { feature: "CSV export of invoices", codebase_context: "A Django app with an invoices module" },
  },
  "36-bug-hunter.prose": {
    inputs: { bug_report: "TypeError: Cannot read properties of undefined (reading 'id') at cart.js:42" },
  },
  "37-the-forge.prose": { inputs: { test_url: "https://prose.md" } },
  "38-skill-scan.prose": { inputs: { mode: "standard", focus: "exfiltration", skill_filter: "" } },
  "39-architect-by-simulation.prose": {
    inputs: {
      feature: "A plugin system for the editor",
      context_files: "docs/architecture.md, src/editor.ts",
      output_dir: "plans/plugins",
      user_approval: "Approved, proceed",
    },
  },
  "40-rlm-self-refine.prose": {
    inputs: { artifact: "A draft README for a CLI tool", criteria: "Clear install steps, one example per command" },
  },
  "41-rlm-divide-conquer.prose": {
    inputs: { corpus: "Chapter 1. The harbour.\n\nChapter 2. The storm.", query: "Which ships are named?" },
  },
  "42-rlm-filter-recurse.prose": {
    inputs: {
      documents: "doc-1: minutes of the March meeting\ndoc-2: budget for Q2",
      question: "Who approved the Q2 budget?",
    },
  },
  "43-rlm-pairwise.prose": { inputs: { items: "- apples\n- pears\n- plums", relation: "flavour similarity" } },
  "44-run-endpoint-ux-test.prose": {
    inputs: {
      test_program: "examples/01-hello-world.prose",
      api_url: "http://localhost:3001",
      auth_token: "test-token",
    },
  },
  "45-plugin-release.prose": { inputs: { release_type: "minor", user_override: "yes" } },
  "46-workflow-crystallizer.prose": {
    inputs: {
      thread: "We rebased, ran the tests, then tagged the release.",
      hint: "release steps",
      user_decision: "Scope: project. Placement: as recommended.",
    },
  },
  "47-language-self-improvement.prose": {
    inputs: {
      corpus_path: "examples/",
      conversations: "",
      focus: "error handling",
      user_review: "Approve all",
      override: "no",
    },
    // `output result` is bound only on the two halting paths, which end in a throw.
    unboundOutputs: ["result"],
  },
  "48-habit-miner.prose": {
    inputs: {
      mode: "full",
      min_frequency: "3",
      focus: "git",
      source_selection: "all sources",
      pattern_selection: "all",
      output_location: ".prose/habits",
    },
  },
  "49-prose-run-retrospective.prose": {
    inputs: {
      run_id: ".prose/runs/20260101-120000-abc123",
      prose_path: "examples/01-hello-world.prose",
      approval_response: "all",
    },
  },
  "50-interactive-tutor.prose": {
    inputs: { name: "Ada", topic: "recursion", level: "beginner", go_deeper: "practice exercises" },
  },
};

type Construct = "until" | "while" | "if";

/** The construct a `**condition**` belongs to, from the text before its opening `**` on that line. */
function constructOf(source: string, condition: string): Construct | undefined {
  const first = condition
    .split("\n")
    .find((line) => line.trim() !== "")
    ?.trim();
  if (first === undefined) return undefined;
  for (let at = source.indexOf(first); at >= 0; at = source.indexOf(first, at + 1)) {
    const before = source.slice(0, at).replace(/\s+$/, "");
    if (!before.endsWith("**")) continue;
    const opening = before.replace(/\*+$/, "");
    const line = opening.slice(opening.lastIndexOf("\n") + 1);
    if (/\bloop\s+until\s*$/.test(line)) return "until";
    if (/\bloop\s+while\s*$/.test(line)) return "while";
    return "if";
  }
  return undefined;
}

const answer = (value: unknown, reason = "scripted"): FakeReply =>
  reply.toolUse([{ name: "answer", input: { answer: value, reason } }]);

export interface ScriptedModelOptions {
  /** Appended to each item of a session's two-item reply (the benchmark's replies of realistic length). */
  readonly itemText?: string;
  /** Before answering, a session offered `read_file` reads `notes/1.md`, `notes/2.md` ... one per turn (the benchmark's agents). */
  readonly toolTurns?: number;
}

/** Asks of one loop's condition without any change in what it sees, after which the loop is called stuck. */
const STUCK_ASKS = 12;

/** What a judgment is shown besides its question: the trail and the named values before `Condition:`. */
function judgmentEvidence(request: FakeRequest): string {
  const question = lastUserText(request);
  const at = question.lastIndexOf("Condition: ");
  return at < 0 ? "" : question.slice(0, at);
}

/** The scripted model for one program (its source locates the conditions it is asked). */
export function scriptedModel(source: string, scenario: Scenario, options: ScriptedModelOptions = {}) {
  const item = options.itemText ?? "";
  const asked = new Map<string, number>();
  /** A running loop's condition: the evidence it was last asked with, and how often it was asked. */
  const looking = new Map<string, { readonly evidence: string; readonly asks: number }>();
  const stuck: string[] = [];
  const unlocated: string[] = [];
  const respond = (request: FakeRequest): FakeReply => {
    const kind = callKind(request);
    if (kind === "session") {
      const task = firstUserText(request);
      if (scenario.failSessions?.some((text) => task.includes(text)))
        return reply.error(400, { message: "scripted failure" });
      const turn = request.body?.messages.filter((message) => message.role === "assistant").length ?? 0;
      if (turn < (options.toolTurns ?? 0) && request.body?.tools?.some((tool) => tool.name === "read_file"))
        return reply.toolUse([{ name: "read_file", input: { path: `notes/${turn + 1}.md` } }]);
      return reply.text(/\byes or no\b/i.test(task) ? "Yes." : `- first point${item}\n- second point${item}`);
    }
    if (kind === "choice") return answer(choiceOptions(request)[0]);
    if (kind === "extraction") {
      const question = askedText(request);
      if (question.startsWith("List the items")) return answer(["a", "b"]);
      if (question.startsWith("Does this text answer yes")) return answer(true);
      const fields = fieldsAsked(request);
      return answer(fields === undefined ? "value" : Object.fromEntries(fields.map((field) => [field, "value"])));
    }
    const condition = judgmentCondition(request);
    const construct = constructOf(source, condition);
    if (construct === undefined) unlocated.push(condition);
    if (construct === "until" || construct === "while") {
      const evidence = judgmentEvidence(request);
      const before = looking.get(condition);
      const progressed = before !== undefined && before.evidence !== evidence;
      const asks = (before?.asks ?? 0) + 1;
      // A loop whose judge never sees progress would run forever without `max`: said, and ended.
      if (!progressed && asks > STUCK_ASKS) stuck.push(condition);
      const done = progressed || asks > STUCK_ASKS;
      // A loop that is done is over: the condition's next ask starts another run of the loop.
      if (done) looking.delete(condition);
      else looking.set(condition, { evidence, asks });
      return answer(construct === "until" ? done : !done, `scripted (${construct}, progress: ${progressed})`);
    }
    const count = asked.get(condition) ?? 0;
    asked.set(condition, count + 1);
    return answer(count % 2 === 1, `scripted (${construct ?? "unlocated"} #${count})`);
  };
  return { respond, unlocated, stuck };
}
