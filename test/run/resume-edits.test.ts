/**
 * Resuming a run whose program was edited: steps whose structural key and fingerprint are unchanged
 * are reused, the rest run, and the run says what it did. Generated modules run on the runtime's
 * source against the fake Messages API, through the library API `prosec run --resume` uses.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import type { RunEvent, RunOptions, Value } from "../../runtime/index.js";
import { deterministicModel } from "../support/deterministic-model.js";
import {
  askedText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";
import { pick, seededRandom } from "../support/random.js";
import { caseCount } from "../support/edit-loop.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

interface Module {
  run(inputs: Record<string, Value>, options?: RunOptions): Promise<Record<string, Value>>;
}

const THREE = `let a = session "Research tides"
let b = session "Outline a report"
  context: a
output c = session "Write the report"
  context: b
`;

/** The program as `report.prose` (its name is part of every request), each text a module of its own. */
async function load(source: string): Promise<Module> {
  const name = "report";
  const { code, diagnostics } = lowerSource(source, `${name}.prose`);
  expect(diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const path = join(temporaryFolder("prosec-edits-modules-"), `${name}.prose.ts`);
  writeFileSync(path, code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function model(answer: (request: FakeRequest) => FakeReply = deterministicModel()): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond: answer });
  servers.push(server);
  return server;
}

const RUN_ID = "20260115-143052-a7b3c9";

/** A complete run of `source`, copied into a fresh project for each resume. */
async function recorded(source: string, answer?: (request: FakeRequest) => FakeReply): Promise<() => string> {
  const cwd = temporaryFolder();
  const runDir = join(cwd, ".prose", "runs", RUN_ID);
  const server = await model(answer);
  await (await load(source)).run({}, { apiKey: TEST_API_KEY, baseURL: server.url, cwd, runDir, runId: RUN_ID });
  return () => {
    const copy = temporaryFolder();
    cpSync(join(cwd, ".prose"), join(copy, ".prose"), { recursive: true });
    return copy;
  };
}

async function resume(
  source: string,
  cwd: string,
  extra: RunOptions = {},
  answer?: (request: FakeRequest) => FakeReply,
): Promise<{ asked: string[]; events: RunEvent[]; outputs: Record<string, Value> }> {
  const server = await model(answer);
  const events: RunEvent[] = [];
  const outputs = await (
    await load(source)
  ).run(
    {},
    {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      cwd,
      runDir: join(cwd, ".prose", "runs", RUN_ID),
      runId: RUN_ID,
      resume: true,
      onEvent: (event) => events.push(event),
      ...extra,
    },
  );
  return { asked: server.requests.map((request) => askedText(request).split("\n").at(-1)!), events, outputs };
}

const summary = (events: readonly RunEvent[]): string | undefined =>
  events.flatMap((event) => (event.type === "resumed" ? [event.summary] : []))[0];

describe("--resume with an edited program", () => {
  it("the third prompt edited: only the third session runs again", async () => {
    const project = await recorded(THREE);
    const { asked, events } = await resume(THREE.replace("Write the report", "Write the report briefly"), project());
    expect(asked).toEqual(["Write the report briefly"]);
    expect(summary(events)).toBe("reused 2 steps; re-running 1 from line 4 (prompt changed)");
  });

  it("a bound session inserted at the top: the three recorded steps are reused, only the new one runs", async () => {
    const project = await recorded(THREE);
    const { asked, events } = await resume(`let z = session "Say hello"\n\n${THREE}`, project());
    expect(asked).toEqual(["Say hello"]);
    expect(summary(events)).toBe("reused 3 steps; 1 new");
  });

  it("the first prompt changed: all three run again, the later two because they read its value", async () => {
    const project = await recorded(THREE);
    const { asked, events } = await resume(THREE.replace("Research tides", "Research the tides"), project());
    expect(asked).toEqual(["Research the tides", "Outline a report", "Write the report"]);
    expect(summary(events)).toBe("reused 0 steps; re-running 3 from line 1 (prompt changed, an input changed)");
  });

  it("an unchanged program resumes as before, with nothing to report", async () => {
    const project = await recorded(THREE);
    const { asked, events } = await resume(THREE, project());
    expect(asked).toEqual([]);
    expect(summary(events)).toBeUndefined();
  });

  it("unbound siblings are lined up with the recorded program by a diff: one inserted between two runs alone", async () => {
    const unbound = `session "Alpha"\n  context: []\nsession "Beta"\n  context: []\n`;
    const project = await recorded(unbound);
    const edited = `session "Alpha"\n  context: []\nsession "Gamma"\n  context: []\nsession "Beta"\n  context: []\n`;
    const { asked, events } = await resume(edited, project());
    expect(asked).toEqual(["Gamma"]);
    expect(summary(events)).toBe("reused 2 steps; 1 new");
  });

  it("a step whose model changed runs again, saying its model changed", async () => {
    const withAgent = `agent writer:\n  model: sonnet\n\n${THREE.replace('output c = session "Write the report"', 'output c = session: writer\n  prompt: "Write the report"')}`;
    const project = await recorded(withAgent);
    const { asked, events } = await resume(withAgent.replace("model: sonnet", "model: opus"), project());
    expect(asked).toEqual(["Write the report"]);
    expect(summary(events)).toMatch(/^reused 2 steps; re-running 1 from line \d+ \(model changed\)$/);
  });

  it("strict: true refuses an edited program, as before", async () => {
    const project = await recorded(THREE);
    const cwd = project();
    await expect(resume(THREE.replace("Write", "Draft"), cwd, { strict: true })).rejects.toThrow(
      /The program changed since run .* --strict resumes only the very program that ran/,
    );
  });

  it("after an edited resume, the run resumes again as the new program, reusing everything", async () => {
    const project = await recorded(THREE);
    const cwd = project();
    const edited = `let z = session "Say hello"\n\n${THREE.replace("Write the report", "Write the report briefly")}`;
    const first = await resume(edited, cwd);
    expect(first.asked).toEqual(["Say hello", "Write the report briefly"]);
    const again = await resume(edited, cwd);
    expect(again.asked).toEqual([]);
    expect(again.outputs).toEqual(first.outputs);
    const manifest = JSON.parse(readFileSync(join(cwd, ".prose", "runs", RUN_ID, "run.json"), "utf8")) as {
      sourceHash: string;
    };
    expect(readFileSync(join(cwd, ".prose", "runs", RUN_ID, "program.prose"), "utf8")).toBe(edited);
    expect(manifest.sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("values that several steps produced alike (parallel branches answering the same) resume the same way", async () => {
    const same = (): FakeReply => reply.text("Same answer.");
    const program = `parallel:\n  x = session "Look left"\n  y = session "Look right"\n\noutput z = session "Compare"\n  context: { x, y }\n`;
    const project = await recorded(program, same);
    expect((await resume(program, project(), {}, same)).asked).toEqual([]);
    const { asked } = await resume(program.replace("Compare", "Compare them"), project(), {}, same);
    expect(asked).toEqual(["Compare them"]);
  });

  it("every session answering alike: a session inserted at the top costs 1 request, never a re-run of one that read an equal text", async () => {
    const same = (): FakeReply => reply.text("The same answer.");
    const program = [
      'let a = session "Step one"',
      'let b = session "Step two"',
      "  context: a",
      'let c = session "Step three"',
      "  context: b",
      "output c = c",
      "",
    ].join("\n");
    const project = await recorded(program, same);
    const { asked, events } = await resume(`let z = session "A new first step"\n${program}`, project(), {}, same);
    expect(asked).toEqual(["A new first step"]);
    expect(summary(events)).toBe("reused 3 steps; 1 new");
  });
});

/**
 * Issue 40, item 7, as a property: programs edited at random, resumed against a model whose answers
 * collide (two texts for every request), never reuse a result that an uninterrupted run of the
 * edited program would not have produced: the resumed run's outputs equal the uninterrupted run's,
 * and every request it sends is one the uninterrupted run sends too.
 */
describe("--resume after random edits, against a model whose answers collide", () => {
  const colliding = (request: FakeRequest): FakeReply => {
    let hash = 0;
    for (const character of JSON.stringify(request.body?.messages ?? []))
      hash = (hash * 31 + character.charCodeAt(0)) | 0;
    return reply.text(hash % 2 === 0 ? "Answer A." : "Answer B.");
  };

  /** Sessions bound to s1..sN, some reading an earlier one, some unbound (they inherit the trail). */
  function program(random: () => number, steps: number): string[] {
    const lines: string[] = [];
    for (let step = 1; step <= steps; step++) {
      if (random() < 0.25) {
        lines.push(`session "Note ${step}"`);
        continue;
      }
      const earlier = lines.flatMap((line) => /^let (s\d+)/.exec(line)?.[1] ?? []);
      lines.push(`let s${step} = session "Step ${step}"`);
      if (earlier.length > 0 && random() < 0.6) lines.push(`  context: ${pick(random, earlier)}`);
    }
    return lines;
  }

  function withOutputs(lines: readonly string[]): string {
    const bound = lines.flatMap((line) => /^let (s\d+)/.exec(line)?.[1] ?? []);
    return `${[...lines, `output all = [${bound.join(", ")}]`].join("\n")}\n`;
  }

  /** One seeded edit: a session inserted, one removed, a prompt changed or a context dropped. */
  function edit(lines: readonly string[], random: () => number): string[] {
    const starts = lines.flatMap((line, index) => (line.startsWith("  ") ? [] : [index]));
    const at = pick(random, starts);
    const end = starts.find((start) => start > at) ?? lines.length;
    const kind = pick(random, ["insert", "remove", "prompt", "context"]);
    if (kind === "insert") return [...lines.slice(0, at), `let n${at} = session "Inserted ${at}"`, ...lines.slice(at)];
    if (kind === "remove" && starts.length > 1) {
      const removed = /^let (s\d+)/.exec(lines[at]!)?.[1];
      const kept = [...lines.slice(0, at), ...lines.slice(end)];
      // A step that read the removed one reads nothing now.
      return kept.filter((line) => removed === undefined || line !== `  context: ${removed}`);
    }
    if (kind === "prompt") return lines.map((line, index) => (index === at ? line.replace(/"$/, ' again"') : line));
    return lines.filter((line, index) => !(index > at && index < end && line.startsWith("  context:")));
  }

  it("reuses only what an uninterrupted run of the edited program produces", { timeout: 240_000 }, async () => {
    let reusedSomewhere = 0;
    const seeds = caseCount(24);
    for (let seed = 1; seed <= seeds; seed++) {
      const random = seededRandom(seed);
      const original = program(random, 3 + (seed % 4));
      let edited = original;
      for (let edits = 1 + (seed % 2); edits > 0; edits--) edited = edit(edited, random);
      const project = await recorded(withOutputs(original), colliding);
      const resumed = await resume(withOutputs(edited), project(), {}, colliding);
      const fresh = await resume(withOutputs(edited), temporaryFolder(), { resume: false }, colliding);
      const where = `seed ${seed}:\n${withOutputs(original)}---\n${withOutputs(edited)}`;
      expect(resumed.outputs, where).toEqual(fresh.outputs);
      for (const asked of resumed.asked) expect(fresh.asked, where).toContain(asked);
      if (resumed.asked.length < fresh.asked.length) reusedSomewhere++;
    }
    // The property is about reuse: most edited programs reuse something.
    expect(reusedSomewhere).toBeGreaterThan(seeds / 2);
  });
});

describe("--resume with typed results (returns:)", () => {
  const TYPED = `let a = session "List the risks"
  returns: [{ title: string }]
let b = session "Rank them"
  context: a
  returns: { top: string, count: number }
output c = session "Write the report"
  context: b
`;

  it("a recorded structured answer replays as the same value: nothing is asked again", async () => {
    const project = await recorded(TYPED);
    const cwd = project();
    const journal = readFileSync(join(cwd, ".prose", "runs", RUN_ID, "journal.jsonl"), "utf8");
    // The journal holds the value as it is, not its text.
    expect(journal).toContain('"kind":"session","value":[{"title":"title"},{"title":"title"}],');
    expect(journal).toContain('"kind":"session","value":{"top":"top","count":1},');
    const first = await resume(TYPED, cwd);
    expect(first.asked).toEqual([]);
    expect(summary(first.events)).toBeUndefined();
    const again = await resume(TYPED, project());
    expect(again.outputs).toEqual(first.outputs);
  });

  it("a changed returns: type re-runs that step and what reads it, not the one before", async () => {
    const project = await recorded(TYPED);
    const { asked, events } = await resume(
      TYPED.replace("{ top: string, count: number }", "{ top: string }"),
      project(),
    );
    expect(asked).toEqual(["Rank them", "Write the report"]);
    expect(summary(events)).toMatch(/^reused 1 step; re-running 2 from line 3 \(settings changed, an input changed\)$/);
  });

  it("returns: added to a session recorded as text re-runs it", async () => {
    const project = await recorded(THREE);
    const typed = THREE.replace(
      'let b = session "Outline a report"',
      'let b = session "Outline a report"\n  returns: string[]',
    );
    const { asked } = await resume(typed, project());
    expect(asked).toEqual(["Outline a report", "Write the report"]);
  });
});
