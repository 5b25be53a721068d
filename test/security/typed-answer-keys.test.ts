/**
 * A typed session's answer (`returns:`) is JSON, and JSON has no prototype: its validator reads the
 * answer's own keys only. Read through Object.prototype, an optional field named `toString` could
 * never be left out (every object "has" one, which is no string), and a required `constructor` left
 * out was "must be string" instead of missing. A hostile answer's `__proto__` key is a key the type
 * does not declare, and never becomes the value's prototype.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SessionRequest } from "../../runtime/types.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst } from "../runtime/helpers.js";

let server: FakeServer | undefined;
afterEach(async () => server?.close());

/** `{ constructor: string, toString?: string, valueOf?: number }`, as the compiler writes it. */
const NAMED_LIKE_OBJECT = {
  type: "object",
  properties: { constructor: { type: "string" }, toString: { type: "string" }, valueOf: { type: "number" } },
  required: ["constructor"],
  additionalProperties: false,
} as const;

const request: SessionRequest = {
  at: at(3),
  prompt: "Describe the class",
  binding: "described",
  permissions: { read: [], write: [] },
  returns: NAMED_LIKE_OBJECT,
};

const answer = (value: unknown) => reply.toolUse([{ name: "answer", input: { answer: value } }]);
/** The tool input as a model's JSON carries it: `__proto__` an own key, as JSON.parse makes it. */
const rawAnswer = (json: string) =>
  reply.toolUse([{ name: "answer", input: JSON.parse(`{"answer":${json}}`) as Record<string, unknown> }]);

describe("a typed answer's keys", () => {
  it("an optional field named like an Object.prototype member may be left out", async () => {
    server = await startFakeAnthropic({ script: [answer({ constructor: "Widget" })] });
    const { result } = await runAgainst(server, (rt) => rt.session(request));
    expect(result).toEqual({ constructor: "Widget" });
    expect(server.requests).toHaveLength(1);
  });

  it("a required one left out is missing, and the model is told so", async () => {
    server = await startFakeAnthropic({
      script: [answer({ toString: "a widget" }), answer({ constructor: "Widget", toString: "a widget" })],
    });
    const { result } = await runAgainst(server, (rt) => rt.session(request));
    expect(result).toEqual({ constructor: "Widget", toString: "a widget" });
    const correction = JSON.stringify(server.requests[1]!.body!.messages.at(-1));
    expect(correction).toContain("must have required property 'constructor'");
    expect(correction).not.toContain("must be string");
  });

  it("a __proto__ key is one the type does not declare, and pollutes nothing", async () => {
    server = await startFakeAnthropic({
      script: [
        rawAnswer('{"constructor": "Widget", "__proto__": {"valueOf": 1, "admin": true}}'),
        answer({ constructor: "Widget" }),
      ],
    });
    const { result } = await runAgainst(server, (rt) => rt.session(request));
    expect(result).toEqual({ constructor: "Widget" });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as { admin?: unknown }).admin).toBeUndefined();
    expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain(
      'has the key \\"__proto__\\", which the type does not declare',
    );
  });
});
