/**
 * Every corpus program against a model that misbehaves as real ones do (docs/model-answers.md): the
 * first asks of its judgments, choices and extractions are answered in turn 0, 1 and 2 times with
 * something that cannot be read (text, the answer tool with the wrong input, a refusal, a reply cut
 * off at max_tokens with nothing in it, a call of a tool that is not offered), and only then as the
 * scripted model answers. Each run still ends as its scenario says, and its calls, the re-asks
 * included, stay within the program's static bound (its retry term counts 2 re-asks per question).
 */
import { describe, expect, it } from "vitest";
import { corpusPrograms } from "../support/corpus.js";
import { reply, type FakeReply, type Responder } from "../support/fake-anthropic.js";
import { asFirstAsk, reasksIn } from "../support/requests.js";
import { runCorpusProgram } from "./corpus-run.js";

const MISBEHAVIOURS: readonly (() => FakeReply)[] = [
  () => reply.text("???"),
  () => reply.toolUse([{ name: "answer", input: { reason: "unsure" } }]),
  () => reply.refusal(),
  () => reply.cut(""),
  () => reply.toolUse([{ name: "web_search", input: { query: "the answer" } }]),
];

/** A model that answers each forced question's first asks unreadably 0, 1 or 2 times, in turn. */
function misbehaving(respond: Responder): Responder & { readonly reasked: () => number } {
  const unreadable = new Map<string, number>();
  let questions = 0;
  let reasked = 0;
  const model = (request: Parameters<Responder>[0]) => {
    if (request.body?.tool_choice === undefined) return respond(request);
    const first = asFirstAsk(request);
    const key = JSON.stringify(first.body?.messages);
    let wanted = unreadable.get(key);
    if (wanted === undefined) unreadable.set(key, (wanted = questions++ % 3));
    const corrections = reasksIn(request);
    if (corrections > 0) reasked++;
    if (corrections < wanted) return MISBEHAVIOURS[(questions + corrections) % MISBEHAVIOURS.length]!();
    return respond(first);
  };
  return Object.assign(model, { reasked: () => reasked });
}

describe("corpus programs run end to end against a model that misbehaves", () => {
  let reasked = 0;
  for (const program of corpusPrograms) {
    it(program.name, async () => {
      let model: ReturnType<typeof misbehaving> | undefined;
      await runCorpusProgram(program, (respond) => (model = misbehaving(respond)));
      reasked += model!.reasked();
    });
  }

  it("asked again many times across the corpus", () => {
    expect(reasked).toBeGreaterThan(50);
  });
});
