/**
 * A program written the way generated modules call the runtime: inputs, a loop judged by the model,
 * a parallel block, a pipeline over text that holds a list, interpolation through `text()`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { add, defineProgram, startRun, text, type RunOptions } from "../../runtime/index.js";
import type { RunEvent } from "../../runtime/types.js";
import {
  askedText,
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "./helpers.js";

const program = defineProgram({
  name: "review-loop",
  source: "fixtures/review-loop.prose",
  sourceHash: "f".repeat(64),
  compilerVersion: "0.1.0",
  inputs: [{ name: "topic", prompt: "What to write about" }],
  outputs: ["summary"],
});

interface Inputs {
  topic: string;
}
interface Outputs {
  summary: string;
}

function run(inputs: Inputs, options?: RunOptions): Promise<Outputs> {
  return startRun(program, inputs, options, async (rt) => {
    const topic = rt.bind({ line: 1, column: 1 }, "topic", await rt.input({ line: 1, column: 1 }, program.inputs[0]!));
    let draft = rt.bind(
      { line: 3, column: 1 },
      "draft",
      await rt.session({ at: { line: 3, column: 13 }, prompt: `Draft an outline about ${text(topic)}` }),
    );
    for (let iteration = 0; iteration < 3; iteration++) {
      if (await rt.judge({ line: 5, column: 1 }, "the outline is complete", { draft })) break;
      rt.iteration({ line: 5, column: 1 }, iteration);
      draft = rt.bind(
        { line: 6, column: 3 },
        "draft",
        await rt.session({ at: { line: 6, column: 11 }, prompt: "Improve the outline", context: { draft } }),
      );
    }
    const sections = await rt.list({ line: 8, column: 1 }, draft);
    const written = await rt.map({ line: 9, column: 1 }, sections, (section) =>
      rt.session({ at: { line: 10, column: 5 }, prompt: `Write the section ${text(section)}` }),
    );
    const [intro, outro] = await rt.parallel({ line: 12, column: 1 }, {}, [
      () => rt.session({ at: { line: 13, column: 7 }, prompt: "Write an introduction", context: { written } }),
      () => rt.session({ at: { line: 14, column: 7 }, prompt: "Write a conclusion", context: { written } }),
    ]);
    const summary = rt.bind({ line: 16, column: 1 }, "summary", add(add(intro ?? "", "\n"), outro ?? ""));
    return { summary: text(summary) };
  });
}

function responder(request: FakeRequest) {
  const prompt = askedText(request);
  if (request.body?.tool_choice !== undefined) {
    const complete = lastUserText(request).includes("- Why");
    return reply.toolUse([
      { name: "answer", input: { answer: complete, reason: complete ? "has all three parts" : "missing a part" } },
    ]);
  }
  if (prompt.startsWith("Draft")) return reply.text("- What\n- How");
  if (prompt.startsWith("Improve")) return reply.text("- What\n- How\n- Why");
  if (prompt.startsWith("Write the section"))
    return reply.text(`Section: ${prompt.slice("Write the section ".length).split("\n")[0]}`);
  return reply.text(prompt.startsWith("Write an introduction") ? "INTRO" : "OUTRO");
}

let server: FakeServer;
afterEach(async () => server?.close());

describe("a program driving the runtime", () => {
  it("runs a judged loop, a pipeline over a parsed list and a parallel block to its outputs", async () => {
    server = await startFakeAnthropic({ respond: responder });
    const events: RunEvent[] = [];
    const outputs = await run(
      { topic: "durable workflows" },
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder(), onEvent: (event) => events.push(event) },
    );
    expect(outputs).toEqual({ summary: "INTRO\nOUTRO" });
    const sectionPrompts = server.requests
      .map(askedText)
      .filter((prompt) => prompt.startsWith("Write the section"))
      .map((prompt) => prompt.split("\n")[0]);
    expect(sectionPrompts.sort()).toEqual(
      ["Write the section What", "Write the section How", "Write the section Why"].sort(),
    );
    expect(lastUserText(server.requests[0]!)).toContain("Draft an outline about durable workflows");
    expect(
      events.filter((event) => event.type === "judgment").map((event) => event.type === "judgment" && event.answer),
    ).toEqual(["no", "yes"]);
    expect(events.filter((event) => event.type === "loop-iteration")).toHaveLength(1);
    expect(events.find((event) => event.type === "extraction")).toEqual(
      expect.objectContaining({ shape: "list", method: "parse" }),
    );
  });
});
