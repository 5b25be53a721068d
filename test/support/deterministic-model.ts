/**
 * A fake model whose every answer is a function of the request alone, so an interrupted and resumed
 * run gets the same answers as an uninterrupted one, and every answer names the request it came from
 * (`identity`): a session's text and a judgment's reason start with it, so the journal of a run shows
 * which requests its steps answered.
 */
import { createHash } from "node:crypto";
import { exampleOf, typedAnswerSchema } from "../../runtime/testing/schema-example.js";
import { askedText, lastUserText, reply, type FakeReply, type FakeRequest } from "./fake-anthropic.js";

/** A short hash of what the request asks: the same step asks the same thing in every run. */
export function identity(request: FakeRequest): string {
  const body = request.body;
  return createHash("sha256")
    .update(JSON.stringify([body?.system, body?.messages, body?.tool_choice]))
    .digest("hex")
    .slice(0, 12);
}

/** The identity a recorded step's value or reason starts with, if any. */
export function identityIn(text: unknown): string | undefined {
  return typeof text === "string" ? /^\[([0-9a-f]{12})\]/.exec(text)?.[1] : undefined;
}

/**
 * A judgment's question, then the values it shows, as one text: the question is the request's last
 * block and the values come before it (prompt caching puts them first), so it reads as it always has.
 */
function questionWithValues(request: FakeRequest): string {
  const last = [...(request.body?.messages ?? [])].reverse().find((message) => message.role === "user");
  if (last === undefined || typeof last.content === "string") return lastUserText(request);
  const texts = last.content.flatMap((block) => (typeof block["text"] === "string" ? [block["text"]] : []));
  return [...texts.slice(-1), ...texts.slice(0, -1)].join("\n\n");
}

/**
 * Sessions answer `[identity] re: <first line of the task>`; judgments answer `judge(the question with its values)`;
 * choices take the first option; extractions give two items, or `"value"` for every field asked.
 */
export function deterministicModel(
  judge: (question: string) => boolean = () => true,
): (request: FakeRequest) => FakeReply {
  return (request) => {
    const id = identity(request);
    const tool = request.body?.tools?.[0];
    const prompt = askedText(request);
    // A typed session (`returns:`): its answer, built from the schema, whether or not it is forced.
    const typed = typedAnswerSchema(request.body?.tools as Parameters<typeof typedAnswerSchema>[0]);
    if (typed !== undefined) return reply.toolUse([{ name: "answer", input: { answer: exampleOf(typed, `[${id}]`) } }]);
    if (request.body?.tool_choice === undefined || tool === undefined)
      return reply.text(`[${id}] re: ${prompt.trim().split("\n")[0]}`);
    const schema = (
      tool.input_schema as { properties: { answer: { type?: string; enum?: string[]; properties?: object } } }
    ).properties.answer;
    const fields =
      schema.type === "object"
        ? Object.fromEntries(Object.keys(schema.properties ?? {}).map((field) => [field, "value"]))
        : undefined;
    const answer =
      schema.enum?.[0] ??
      fields ??
      (schema.type === "boolean"
        ? judge(questionWithValues(request))
        : schema.type === "array"
          ? ["first", "second"]
          : "value");
    return reply.toolUse([{ name: "answer", input: { answer, reason: `[${id}] scripted` } }]);
  };
}
