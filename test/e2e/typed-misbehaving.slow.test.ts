/**
 * Programs with `returns:` against a model that misbehaves as real ones do with a schema: a session
 * with tools ends in text first (one forced request asks for the answer), then the answer comes 0, 1
 * or 2 times with the wrong shape (an undeclared key, a wrong literal, text) before a valid one. Each
 * run finishes with every output, and its calls, the forced answers and re-asks included, stay within
 * the program's static bound (`prosec cost`).
 */
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../runtime/types.js";
import { exampleOf, typedAnswerSchema } from "../../runtime/testing/schema-example.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { reply, startFakeAnthropic, type FakeReply, type FakeRequest } from "../support/fake-anthropic.js";
import { reasksIn } from "../support/requests.js";
import { expectWithinBound, loadProgram, observedValues, TEST_API_KEY, temporaryFolder } from "./harness.js";

const PROGRAMS: Record<string, string> = {
  "loop.prose": `let risks = session "List the risks"
  returns: [{ title: string, severity: "low" | "high" }]
for risk in risks:
  session "Mitigate {risk.title}"
output top = risks[0].title
`,
  "agent.prose": `agent triager:
  returns: { verdict: "ship" | "hold", reasons: string[] }
  permissions:
    read: []
    write: []
let plan = session "Draft a plan"
output triage = session: triager
  prompt: "Should it ship?"
  context: plan
`,
  "map.prose": `let topics = ["a", "b", "c"]
let scored = topics | map:
  session "Score {item}"
    returns: { score: number, note?: string }
output scored = scored
`,
  "nested.prose": `let report = session "Report"
  returns: { sections: [{ heading: string, points: (string | null)[] }], done: boolean }
if report.done:
  output first = report.sections[0].heading
else:
  output first = "none"
`,
};

/** Wrong answers of a typed session, in turn: an undeclared key, a wrong literal, text. */
const WRONG: readonly ((answer: unknown) => FakeReply)[] = [
  (answer) => reply.toolUse([{ name: "answer", input: { answer, extra: true } }]),
  () => reply.toolUse([{ name: "answer", input: { answer: "not the type" } }]),
  () => reply.text("Here is my answer, in prose."),
];

function misbehaving(): { respond: (request: FakeRequest) => FakeReply; reasked: () => number } {
  const answer = deterministicModel();
  const wanted = new Map<string, number>();
  let typed = 0;
  let reasked = 0;
  return {
    respond: (request) => {
      const schema = typedAnswerSchema(request.body?.tools as Parameters<typeof typedAnswerSchema>[0]);
      if (schema === undefined) return answer(request);
      const key = JSON.stringify(request.body?.messages[0]);
      let wrong = wanted.get(key);
      if (wrong === undefined) wanted.set(key, (wrong = typed++ % 3));
      const forced = request.body?.tool_choice !== undefined;
      const offeredTools = (request.body?.tools ?? []).length > 1;
      // A session with tools first ends in text, as models often do.
      if (!forced && offeredTools) return reply.text("I have looked into it.");
      const corrections = reasksIn(request);
      if (corrections > 0) reasked++;
      if (corrections < wrong) return WRONG[(typed + corrections) % WRONG.length]!(exampleOf(schema));
      return reply.toolUse([{ name: "answer", input: { answer: exampleOf(schema) } }]);
    },
    reasked: () => reasked,
  };
}

describe("typed programs against a model that misbehaves with the schema", () => {
  let reasked = 0;
  for (const [name, source] of Object.entries(PROGRAMS)) {
    it(`${name}: finishes, within its static bound`, async () => {
      const model = misbehaving();
      const server = await startFakeAnthropic({ respond: model.respond });
      try {
        const loaded = await loadProgram(source, name);
        const events: RunEvent[] = [];
        const outputs = await loaded.run(
          {},
          {
            apiKey: TEST_API_KEY,
            baseURL: server.url,
            cwd: temporaryFolder("prosec-typed-e2e-"),
            maxRetries: 0,
            onEvent: (event: RunEvent) => events.push(event),
          },
        );
        for (const output of loaded.metadata.outputs) expect(outputs[output], output).not.toBeNull();
        // No extraction: every read is of a typed value.
        expect(events.filter((event) => event.type === "extraction" && event.method === "model")).toEqual([]);
        expectWithinBound(loaded.metadata.cost, server.requests, observedValues(loaded.metadata.cost, events, {}));
        reasked += model.reasked();
      } finally {
        await server.close();
      }
    });
  }

  it("asked again across them", () => {
    expect(reasked).toBeGreaterThan(2);
  });
});
