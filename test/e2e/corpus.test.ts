/**
 * End to end: every corpus program (the 50 that are not `roadmap/` sketches) is compiled with the
 * compiler API, imported, and run on the runtime against a scripted fake model that answers every
 * session, judgment, choice and extraction. Each run must FINISH with every declared output, or stop
 * with the program's OWN `throw` (the one listed in `scenarios` below, raised on a `throw` line) —
 * never with any other error, and never by a deadline.
 *
 * The scripted model (deterministic, with `concurrency: 1`):
 * - sessions reply with a two-item markdown list (so `for x in result` parses it without a model
 *   call), or `Yes.` when the task asks for a yes or no;
 * - a judgment looks its condition up in the source and answers by the construct it belongs to. A loop's
 *   condition answers from its evidence (the trail of earlier results and the named values, everything
 *   before `Condition:`), as a model would: the first time it is asked for a loop it sees no progress
 *   (`loop until` answers no, `loop while` yes); later it answers that the loop is done (`until` yes,
 *   `while` no) once its evidence differs from the previous time it was asked, and keeps the loop going
 *   while nothing it can see has changed (a loop whose judge sees no change in 12 asks fails the test:
 *   without the trail, 44-run-endpoint-ux-test's `loop until` with no `max` would never end). Any other
 *   condition (`if`, `elif`, block conditions) answers no, yes, no ... counting how often it was asked;
 * - a choice takes the first option; extractions answer `["a", "b"]` for a list, `true` for yes/no and
 *   `"value"` for a field.
 *
 * The number of model calls per program and kind is compared with the committed `model-calls.json`
 * (update it deliberately with `npx vitest run test/e2e/corpus.test.ts -u`).
 *
 * Subsumes the old test/runtime/corpus-run.test.ts (which accepted any located ProseError).
 */
import { afterAll, describe, expect, it } from "vitest";
import { ProseError } from "../../runtime/index.js";
import { corpusPrograms, type CorpusProgram } from "../support/corpus.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import {
  callKind,
  choiceOptions,
  firstUserText,
  judgmentCondition,
  loadProgram,
  removeTemporaryFolders,
  TEST_API_KEY,
  temporaryFolder,
  type CallKind,
} from "./harness.js";

interface Scenario {
  /** Values for the program's inputs, both the parameters and the inputs asked for later (`onInput`). */
  readonly inputs?: Readonly<Record<string, string>>;
  /** Sessions whose first user message contains one of these texts fail with a non-retryable 400. */
  readonly failSessions?: readonly string[];
  /** The reason of the program's own `throw` the run is expected to end with. */
  readonly throws?: string;
  /** Outputs bound only on paths this run does not take: present, but null. */
  readonly unboundOutputs?: readonly string[];
}

const scenarios: Readonly<Record<string, Scenario>> = {
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

/** Asks of one loop's condition without any change in what it sees, after which the loop is called stuck. */
const STUCK_ASKS = 12;

/** What a judgment is shown besides its question: the trail and the named values before `Condition:`. */
function judgmentEvidence(request: FakeRequest): string {
  const question = lastUserText(request);
  const at = question.lastIndexOf("Condition: ");
  return at < 0 ? "" : question.slice(0, at);
}

const answer = (value: unknown, reason = "scripted"): FakeReply =>
  reply.toolUse([{ name: "answer", input: { answer: value, reason } }]);

/** The scripted model for one program. */
function scriptedModel(program: CorpusProgram, scenario: Scenario) {
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
      return reply.text(/\byes or no\b/i.test(task) ? "Yes." : "- first point\n- second point");
    }
    if (kind === "choice") return answer(choiceOptions(request)[0]);
    if (kind === "extraction") {
      const question = lastUserText(request);
      if (question.startsWith("List the items")) return answer(["a", "b"]);
      if (question.startsWith("Does this text answer yes")) return answer(true);
      return answer("value");
    }
    const condition = judgmentCondition(request);
    const construct = constructOf(program.source, condition);
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

type Counts = Record<CallKind, number>;
const table = new Map<string, Counts>();

let server: FakeServer | undefined;
afterAll(async () => {
  await server?.close();
  removeTemporaryFolders();
});

describe("corpus programs run end to end against a scripted model", () => {
  for (const program of corpusPrograms) {
    it(program.name, async () => {
      const scenario = scenarios[program.name] ?? {};
      const model = scriptedModel(program, scenario);
      server = await startFakeAnthropic({ respond: model.respond });
      try {
        const loaded = await loadProgram(program.source, program.name);
        const given = scenario.inputs ?? {};
        // Every parameter gets a scripted value, and so does every input asked for at run time.
        const parameters = loaded.metadata.inputs.map((input) => input.name);
        expect(parameters.filter((name) => given[name] === undefined)).toEqual([]);
        const inputs = Object.fromEntries(parameters.map((name) => [name, given[name]!]));
        const asked: string[] = [];
        const onInput = (definition: { name: string }) => {
          asked.push(definition.name);
          const value = given[definition.name];
          if (value === undefined) throw new Error(`no scripted answer for input ${definition.name}`);
          return value;
        };
        const cwd = temporaryFolder("prosec-e2e-cwd-");
        const options = {
          apiKey: TEST_API_KEY,
          baseURL: server.url,
          cwd,
          homeDir: temporaryFolder("prosec-e2e-home-"),
          concurrency: 1,
          maxRetries: 0,
          onInput,
        };

        let outputs: Record<string, unknown> | undefined;
        let failure: unknown;
        try {
          outputs = await loaded.run(inputs, options);
        } catch (error) {
          failure = error;
        }

        if (scenario.throws === undefined) {
          if (failure !== undefined) throw failure;
          expect(Object.keys(outputs!).sort()).toEqual([...loaded.metadata.outputs].sort());
          for (const name of loaded.metadata.outputs) {
            expect(outputs![name], `output ${name}`).toBeDefined();
            if (scenario.unboundOutputs?.includes(name)) expect(outputs![name], `output ${name}`).toBeNull();
            else expect(outputs![name], `output ${name}`).not.toBeNull();
          }
        } else {
          expect(failure, "the run should end with the program's own throw").toBeInstanceOf(ProseError);
          const error = failure as ProseError;
          expect(error.reason).toBe(scenario.throws);
          expect(error.file).toBe(program.name);
          expect(error.cause).toBeUndefined();
          const line = program.source.split("\n")[error.line! - 1] ?? "";
          expect(line.trim().startsWith("throw"), `line ${error.line} is a throw: ${line}`).toBe(true);
          expect(line).toContain(JSON.stringify(scenario.throws));
        }
        expect(model.unlocated, "every judged condition is found in the source").toEqual([]);
        expect(model.stuck, "every loop's judge saw progress within its asks").toEqual([]);
        expect(asked.every((name) => given[name] !== undefined)).toBe(true);

        const counts: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
        for (const request of server.requests) counts[callKind(request)]++;
        table.set(program.name, counts);
      } finally {
        await server.close();
        server = undefined;
      }
    });
  }

  it("makes the committed number of model calls per program (model-calls.json)", async () => {
    expect([...table.keys()].sort(), "run the whole file: the table needs every program").toEqual(
      corpusPrograms.map((program) => program.name).sort(),
    );
    const totals: Counts = { session: 0, judgment: 0, choice: 0, extraction: 0 };
    for (const counts of table.values())
      for (const kind of Object.keys(totals) as CallKind[]) totals[kind] += counts[kind];
    // One program per line, so a change shows as a one-line diff.
    const row = (counts: object) => JSON.stringify(counts).replace(/,/g, ", ").replace(/:/g, ": ");
    const rows = [...table.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, counts]) => `    ${JSON.stringify(name)}: ${row(counts)}`);
    const all = totals.session + totals.judgment + totals.choice + totals.extraction;
    const document = `{\n  "totals": ${row({ ...totals, all })},\n  "programs": {\n${rows.join(",\n")}\n  }\n}\n`;
    expect(JSON.parse(document)).toBeTypeOf("object");
    await expect(document).toMatchFileSnapshot("./model-calls.json");
  });
});
