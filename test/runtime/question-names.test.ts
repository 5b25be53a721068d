/**
 * The names a waiting input answers to (runtime/durable/question-names.ts): its bare name, its
 * program's name and its name, its step key; a name is taken only when one waiting input answers to it.
 */
import { describe, expect, it } from "vitest";
import { answerName, matchAnswers, waitingList, whereRecorded } from "../../runtime/durable/question-names.js";
import type { Question } from "../../runtime/index.js";

const question = (key: string, program: string, source: string, name = "confirm"): Question => ({
  name,
  prompt: `${name}?`,
  key,
  at: { line: 3, column: 1 },
  program,
  source,
});

const own = question("/input@8:5#0", "prog", "prog.prose");
const tides = question("/parallel@4:1#0/0/use:gate@5:7#0/input@3:1#0", "gate", "imp/gate.prose");
const moons = question("/parallel@4:1#0/1/use:gate@6:7#0/input@3:1#0", "gate", "imp/gate.prose");
const topic = question("/input@2:1#0", "prog", "prog.prose", "topic");

describe("the name that answers a waiting input", () => {
  it("is the bare name when unique, else the program's name and the name, else the step key", () => {
    expect(answerName(topic, [own, topic])).toBe("topic");
    expect(answerName(own, [own, tides])).toBe("prog.confirm");
    expect(answerName(tides, [own, tides])).toBe("gate.confirm");
    expect(answerName(tides, [own, tides, moons])).toBe(tides.key);
    expect(waitingList([own, tides, moons, topic])).toBe(`"prog.confirm", "${tides.key}", "${moons.key}", "topic"`);
    // A question recorded by an older prosec says no program: its name, else its key.
    const { program: _program, source: _source, ...older } = own;
    expect(answerName(older, [older, tides])).toBe(older.key);
    expect(whereRecorded(older)).toBe("line 3:1");
  });

  it("matches each answer to the one input it names; a name several inputs answer to is refused with their names", () => {
    const waiting = [own, tides, moons, topic];
    expect(
      matchAnswers(waiting, { "prog.confirm": "a", [moons.key]: "b", topic: "c", other: "d" }, whereRecorded),
    ).toEqual({
      answers: [
        [own, "a"],
        [moons, "b"],
        [topic, "c"],
      ],
      unmatched: ["other"],
    });
    expect(matchAnswers(waiting, { confirm: "x" }, whereRecorded)).toEqual({
      problem: `"confirm" names 3 inputs the run waits for; name the one you answer: prog.confirm (prog.prose:3:1), ${tides.key} (imp/gate.prose:3:1), ${moons.key} (imp/gate.prose:3:1)`,
    });
    expect(matchAnswers(waiting, { "gate.confirm": "x" }, whereRecorded)).toMatchObject({
      problem: expect.stringMatching(/^"gate.confirm" names 2 inputs/),
    });
    expect(matchAnswers([own, topic], { confirm: "x", "prog.confirm": "y" }, whereRecorded)).toEqual({
      problem: "the input confirm is answered twice",
    });
    // The only `confirm` waiting is the called program's: the bare name takes it.
    expect(matchAnswers([tides, topic], { confirm: "yes" }, whereRecorded)).toEqual({
      answers: [[tides, "yes"]],
      unmatched: [],
    });
  });
});
