/**
 * Generated modules run: programs are compiled, written with their runtime import pointed at the
 * runtime's source, and executed against the fake Messages API with the real SDK client.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compile, type ImportResolution } from "../../src/compile.js";
import { programInterface } from "../../src/project/imports.js";
import {
  askedText,
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));
const folder = temporaryFolder("prosec-exec-");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Module {
  run(inputs: Record<string, unknown>, options: object): Promise<Record<string, unknown>>;
}

let counter = 0;
async function load(
  source: string,
  name = `program${++counter}`,
  resolveImport?: (path: string) => ImportResolution,
): Promise<Module> {
  const compiled = await compile(source, `${name}.prose`, { resolveImport });
  expect(compiled.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  const path = join(folder, `${name}.prose.ts`);
  writeFileSync(path, compiled.code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
  return (await import(path)) as Module;
}

/**
 * Sessions answer `reply to: <their prompt's first line>`, after `delays[text]` ms when their
 * prompt holds `text`; judgments and choices answer from `answers`.
 */
async function serve(
  answers: Record<string, boolean | string> = {},
  delays: Record<string, number> = {},
): Promise<FakeServer> {
  const respond = (request: FakeRequest): FakeReply => {
    const prompt = lastUserText(request);
    if (request.body?.tool_choice?.name === "answer") {
      const key = Object.keys(answers).find((question) => prompt.includes(question));
      return reply.toolUse([
        { name: "answer", input: { answer: key === undefined ? false : answers[key], reason: "scripted" } },
      ]);
    }
    const delay = Object.entries(delays).find(([text]) => prompt.includes(text))?.[1];
    return reply.text(`reply to: ${prompt.trim().split("\n")[0]}`, delay === undefined ? {} : { delayMs: delay });
  };
  server = await startFakeAnthropic({ respond });
  return server;
}

const options = (fake: FakeServer) => ({ apiKey: "sk-ant-test", baseURL: fake.url, maxRetries: 0, cwd: folder });

describe("generated modules run against the runtime", () => {
  it("binds session results, interpolates them into later prompts and returns the outputs", async () => {
    const fake = await serve();
    const module = await load(
      'input topic: "Topic"\n\nlet notes = session "Research {topic}"\noutput report = session "Report on {notes}"\n',
    );
    const outputs = await module.run({ topic: "tides" }, options(fake));
    expect(fake.requests).toHaveLength(2);
    expect(lastUserText(fake.requests[1]!)).toContain("Report on reply to: Research tides");
    expect(outputs["report"]).toMatch(/^reply to: Report on reply to: Research tides/);
  });

  it("recurses through blocks, and a deterministic condition that decides skips the judgment", async () => {
    const fake = await serve();
    const module = await load(
      [
        "block countdown(n) (max_depth: 10):",
        "  if n <= 0 or **the countdown is over**:",
        '    output "liftoff"',
        "  output do countdown(n - 1)",
        "",
        "output result = do countdown(3)",
      ].join("\n"),
    );
    // With n > 0 the judgment decides: it is asked (and says no) three times, then n <= 0 decides alone.
    const outputs = await module.run({}, options(fake));
    expect(outputs["result"]).toBe("liftoff");
    expect(fake.requests).toHaveLength(3);
  });

  it("recurses 5,000 block calls deep without overflowing the stack", async () => {
    // Each level called the next synchronously: about 1,500 levels overflowed it (exit 3 from prosec run).
    const fake = await serve();
    const module = await load(
      [
        "block descend(n) (max_depth: 6000):",
        "  if n >= 5000:",
        '    output session "The bottom at {n}"',
        "  output do descend(n + 1)",
        "",
        "output result = do descend(1)",
      ].join("\n"),
    );
    const outputs = await module.run({}, options(fake));
    expect(fake.requests).toHaveLength(1);
    expect(lastUserText(fake.requests[0]!)).toContain("The bottom at 5000");
    expect(outputs["result"]).toMatch(/^reply to: /);
  });

  it("runs parallel branches and binds each branch's result to its name after the join", async () => {
    const fake = await serve();
    const module = await load(
      'parallel:\n  a = session "Alpha"\n  b = session "Beta"\n\noutput both = a + " & " + b\n',
    );
    const outputs = await module.run({}, options(fake));
    expect(outputs["both"]).toBe("reply to: Alpha & reply to: Beta");
  });

  it("appends a parallel for's results to an outer list in item order, whatever order they finish in", async () => {
    const fake = await serve({}, { "Look at a": 150, "Look at b": 100, "Look at c": 50 });
    const module = await load(
      'let found = []\nparallel for x in ["a", "b", "c", "d"]:\n  let r = session "Look at {x}"\n  found = found + [r]\n\noutput found-all = found\n',
    );
    const outputs = await module.run({}, options(fake));
    expect(outputs["found-all"]).toEqual([
      "reply to: Look at a",
      "reply to: Look at b",
      "reply to: Look at c",
      "reply to: Look at d",
    ]);
  });

  it("catches a thrown error with its message and runs finally", async () => {
    const fake = await serve();
    const module = await load(
      'let log = "start"\ntry:\n  throw "boom"\ncatch as err:\n  log = log + " caught " + err\nfinally:\n  log = log + " finally"\n\noutput result = log\n',
    );
    const outputs = await module.run({}, options(fake));
    expect(outputs["result"]).toMatch(/^start caught .*boom.* finally$/);
    expect(fake.requests).toHaveLength(0);
  });

  it("takes the option the model chooses", async () => {
    const fake = await serve({ "how bad it is": "Minor" });
    const module = await load(
      'choice **how bad it is**:\n  option "Critical":\n    output level = "stop"\n  option "Minor":\n    output level = "carry on"\n',
    );
    expect((await module.run({}, options(fake)))["level"]).toBe("carry on");
  });

  it("a name every option binds is declared without a value; a later option's judgment sees it as null", async () => {
    const fake = await serve({ "which way": "judged", "is it so": true });
    const module = await load(
      [
        "choice **which way**:",
        '  option "words":',
        '    answer = session "Say it"',
        '  option "judged":',
        "    answer = **is it so**",
        "output answer = answer",
        "",
      ].join("\n"),
    );
    expect(await module.run({}, options(fake))).toEqual({ answer: true });
    const judged = fake.requests.find((request) => askedText(request).includes("is it so"))!;
    const bindings = JSON.stringify(judged.body?.messages);
    // As a binding bound to null is shown: its name over nothing.
    expect(bindings).toContain(String.raw`### answer\n\n"`);
    expect(bindings).not.toMatch(/undefined/);
  });

  it("judges a loop until condition before each iteration: a yes at first runs no iteration, max still bounds it", async () => {
    const fake = await serve({ "the work is done": true });
    const judgedFirst = await load(
      'let runs = 0\nloop until **the work is done** (max: 3):\n  runs = runs + 1\n  session "Work"\noutput result = runs\n',
    );
    expect((await judgedFirst.run({}, options(fake)))["result"]).toBe(0);
    expect(fake.requests).toHaveLength(1);
    // A deterministic condition on a name the body binds: null before the first iteration, then the last value.
    const counted = await load(
      "let n = 0\nloop until done (max: 10):\n  n = n + 1\n  let done = n >= 3\noutput result = n\noutput last = done\n",
    );
    expect(await counted.run({}, options(fake))).toEqual({ result: 3, last: true });
    const bounded = await load("let n = 0\nloop until n > 100 (max: 4):\n  n = n + 1\noutput result = n\n");
    expect((await bounded.run({}, options(fake)))["result"]).toBe(4);
  });

  it("calls an imported program through its generated module", async () => {
    const fake = await serve();
    await load('input topic: "Topic"\n\noutput summary = session "Summarise {topic}"\n', "helper");
    const main = await load(
      'use "./helper.prose" as helper\n\nlet result = helper(topic: "moons")\noutput digest = result.summary\n',
      "main",
      () => ({ inputs: ["topic"], outputs: ["summary"] }),
    );
    expect((await main.run({}, options(fake)))["digest"]).toBe("reply to: Summarise moons");
  });

  it("passes an imported program's mid-program input ahead: the callee does not wait for it", async () => {
    const fake = await serve();
    const gate =
      'input topic: "Topic"\n\nsession "Prepare {topic}"\ninput confirm: "Type YES to go on"\noutput result = session "Go {topic} {confirm}"\n  context: []\n';
    await load(gate, "gate");
    // The interface comes from the callee's own analysis, as `prosec check` and `build` read it.
    const resolve = () => programInterface(gate, "gate.prose");
    const main = await load(
      'use "./gate.prose" as gate\n\nlet g = gate(topic: "tides", confirm: "YES-9")\noutput r = g.result\n',
      "gate-caller",
      resolve,
    );
    expect(await main.run({}, options(fake))).toEqual({ r: "reply to: Go tides YES-9" });
    // Left out, it is asked where the callee reaches it; a name the callee has no input of is still E027.
    const unknown = await compile('use "./gate.prose" as gate\nlet g = gate(topic: "t", confrim: "x")\n', "bad.prose", {
      resolveImport: resolve,
    });
    expect(unknown.diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.message}`)).toEqual([
      "E027 program `gate` has no input `confrim` (did you mean `confirm`?)",
    ]);
    expect(
      (await compile('use "./gate.prose" as gate\nlet g = gate(topic: "t")\n', "ok.prose", { resolveImport: resolve }))
        .diagnostics,
    ).toEqual([]);
  });

  it("asks once for the fields read from one text, and once per item of a filter (its verdict tool)", async () => {
    const respond = (request: FakeRequest): FakeReply => {
      const tool = request.body?.tools?.find((candidate) => candidate.name === "answer");
      if (request.body?.tool_choice === undefined && tool === undefined)
        return reply.text("Release notes: version two, by Ada.");
      if (request.body?.tool_choice === undefined)
        return reply.toolUse([
          { name: "answer", input: { keep: askedText(request).includes("tin"), reason: "scripted" } },
        ]);
      return reply.toolUse([{ name: "answer", input: { answer: { owner: "Ada", title: "Two" } } }]);
    };
    server = await startFakeAnthropic({ respond });
    const module = await load(
      [
        'let notes = session "Write release notes"',
        "output title = notes.title",
        'output owner = "by {notes.owner}"',
        'output metals = ["tin", "wool", "tin foil"] | filter:',
        '  session "Is {item} a metal?"',
      ].join("\n"),
    );
    const outputs = await module.run({}, options(server));
    expect(outputs).toEqual({ title: "Two", owner: "by Ada", metals: ["tin", "tin foil"] });
    // One session, one extraction for both fields, one verdict per item.
    expect(server.requests).toHaveLength(1 + 1 + 3);
  });

  it("gives an input written with a value its default, unless it is answered ahead", async () => {
    const fake = await serve();
    const module = await load(
      [
        "input lanes: [",
        '  "web",',
        '  "api", # a comment inside the brackets',
        "]",
        "input limits: { retries: 2 }",
        "for lane in lanes:",
        '  session "Review {lane} with {limits.retries} retries"',
        "",
      ].join("\n"),
    );
    await module.run({}, options(fake));
    expect(fake.requests.map(lastUserText)).toEqual([
      "Review web with 2 retries",
      // The loop's previous iteration is on the trail (DIALECT.md, Context).
      [
        "## Earlier results (oldest first)",
        "",
        "### Review web with 2 retries",
        "",
        "reply to: Review web with 2 retries",
        "",
        "## Your task",
        "",
        "Review api with 2 retries",
      ].join("\n"),
    ]);
    await module.run({ lanes: ["db"], limits: { retries: 5 } }, options(fake));
    expect(lastUserText(fake.requests[2]!)).toBe("Review db with 5 retries");
  });

  it("asks a multi-line `**` input with its names interpolated, and sends deeper-indented prompts as written", async () => {
    const fake = await serve();
    const module = await load(
      [
        'input topic: "Topic"',
        "input approval: **",
        "  Ask whether the plan for {topic} is approved.",
        "**",
        "let access = { token: approval, expires: 60 }",
        'session "Draft"',
        '  prompt: """',
        "    Draft the notes.",
        "      Indented deeper.",
        '    """',
        "  context: { access.token }",
        "",
      ].join("\n"),
    );
    const asked: unknown[] = [];
    const onInput = (definition: { prompt: string; discretion?: boolean }) => {
      asked.push([definition.prompt.trim(), definition.discretion]);
      return "approved";
    };
    await module.run({ topic: "tides" }, { ...options(fake), onInput });
    expect(asked).toEqual([["Ask whether the plan for tides is approved.", true]]);
    const sent = lastUserText(fake.requests[0]!);
    expect(sent).toContain("Draft the notes.\n  Indented deeper.");
    expect(sent).toContain("approved");
  });
});

describe("a used program's result (DIALECT.md, the `use` rule and destructuring)", () => {
  const helperInterface = (outputs: string[]) => () => ({ inputs: ["topic"], outputs });

  it("a program without outputs returns its last top-level result, not {}", async () => {
    const fake = await serve();
    await load(
      [
        'input topic: "Topic"',
        "",
        'let notes = session "Research {topic}"',
        'session "Summarise {topic}"',
        "if false:",
        '  session "Never asked"',
        "",
      ].join("\n"),
      "plain",
    );
    const main = await load(
      'use "./plain.prose" as plain\n\nlet found = plain(topic: "moons")\noutput digest = session "Digest: {found}"\n',
      "plain-caller",
      helperInterface([]),
    );
    const outputs = await main.run({}, options(fake));
    expect(fake.requests.map((request) => lastUserText(request))).toEqual([
      "Research moons",
      "Summarise moons",
      "Digest: reply to: Summarise moons",
    ]);
    expect(outputs["digest"]).toBe("reply to: Digest: reply to: Summarise moons");
  });

  it("let { a, b } = program(...) binds each name to the output of that name", async () => {
    const fake = await serve();
    await load(
      'input topic: "Topic"\n\noutput summary = session "Summarise {topic}"\noutput sources = session "Sources on {topic}"\n',
      "two-outputs",
    );
    const main = await load(
      [
        'use "./two-outputs.prose" as research',
        "",
        'let { sources, summary } = research(topic: "tides")',
        'output digest = session "Digest {summary} citing {sources}"',
        "",
      ].join("\n"),
      "two-outputs-caller",
      helperInterface(["summary", "sources"]),
    );
    const outputs = await main.run({}, options(fake));
    expect(fake.requests.map((request) => lastUserText(request))).toEqual([
      "Summarise tides",
      "Sources on tides",
      "Digest reply to: Summarise tides citing reply to: Sources on tides",
    ]);
    expect(outputs["digest"]).toBe("reply to: Digest reply to: Summarise tides citing reply to: Sources on tides");
  });

  it("destructures any record, in a block too", async () => {
    const fake = await serve();
    const module = await load(
      [
        "block pair(first, second):",
        "  let { left, right } = { left: first, right: second }",
        '  output session "Compare {left} with {right}"',
        "",
        'const { name, size } = { name: "Io", size: 3 }',
        "output result = do pair(name, size)",
        "",
      ].join("\n"),
    );
    const outputs = await module.run({}, options(fake));
    expect(fake.requests.map((request) => lastUserText(request))).toEqual([
      "Execution scope:\n  execution_id: 1\n  block: pair\n  depth: 1\n  parent_execution_id: 0\n\nCompare Io with 3",
    ]);
    expect(outputs["result"]).toBe("reply to: Execution scope:");
  });
});
