import { describe, expect, it } from "vitest";
import { parseJournal, recordLine } from "../../runtime/durable/file-journal.js";

describe("a journal's turn records", () => {
  it("reads back every turn event a session writes, a cut-off reply's continuation and elided results included", () => {
    const turns = [
      { type: "response", content: [{ type: "text", text: "partial" }] },
      { type: "continued", content: [{ type: "text", text: "partial" }], usage: { input_tokens: 1, output_tokens: 1 } },
      { type: "elided", results: [{ id: "toolu_1", content: "(elided)" }] },
      { type: "restart" },
    ];
    const text = turns.map((turn) => recordLine({ key: "1:1", turn })).join("");
    const { lines } = parseJournal(text, "journal.jsonl");
    expect(lines.map((line) => (line as { turn: { type: string } }).turn.type)).toEqual([
      "response",
      "continued",
      "elided",
      "restart",
    ]);
  });

  it("calls a turn of a type prosec never writes damaged, naming its line", () => {
    const text =
      recordLine({ key: "1:1", turn: { type: "response", content: [] } }) +
      recordLine({ key: "1:1", turn: { type: "invented" } });
    expect(() => parseJournal(text, "journal.jsonl")).toThrow(/line 2/);
  });
});
