import { describe, expect, it } from "vitest";
import { NameTable, type Namespace } from "../../src/phases/3-transform/names.js";

function table(...names: Array<[Namespace, string]>): NameTable {
  return new NameTable(names);
}

describe("TypeScript names for .prose names", () => {
  it("keeps plain names and camel-cases hyphenated ones", () => {
    const names = table(["value", "draft"], ["value", "security-reviewer"], ["value", "a-b-c"]);
    expect(names.get("value", "draft")).toBe("draft");
    expect(names.get("value", "security-reviewer")).toBe("securityReviewer");
    expect(names.get("value", "a-b-c")).toBe("aBC");
  });

  it("never yields a reserved word, a global the module uses, or one of the module's own names", () => {
    const words = [
      "class",
      "await",
      "yield",
      "let",
      "undefined",
      "Promise",
      "rt",
      "text",
      "inputs",
      "options",
      "program",
      "run",
      "add",
      "Value",
    ];
    const names = table(...words.map((word) => ["value", word] as [Namespace, string]));
    for (const word of words) expect(names.get("value", word)).toBe(`${word}$`);
  });

  it("resolves collisions whatever order the names come in: a plain name keeps its spelling", () => {
    for (const order of [
      [
        ["value", "market-trends"],
        ["value", "marketTrends"],
      ],
      [
        ["value", "marketTrends"],
        ["value", "market-trends"],
      ],
    ] as Array<Array<[Namespace, string]>>) {
      const names = new NameTable(order);
      expect(names.get("value", "marketTrends")).toBe("marketTrends");
      expect(names.get("value", "market-trends")).toBe("market$trends");
    }
  });

  it("gives an agent or a block that shares a binding's name a distinct name", () => {
    const names = table(["value", "review"], ["agent", "review"], ["block", "review"]);
    const all = [names.get("value", "review"), names.get("agent", "review"), names.get("block", "review")];
    expect(all[0]).toBe("review");
    expect(new Set(all).size).toBe(3);
    for (const name of all) expect(name).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
  });

  it("makes every name unique over many near-collisions", () => {
    const source = ["a-b", "aB", "a-B", "a_b", "ab", "a--b", "class", "class$", "x-1", "x1", "2x"];
    const names = table(...source.map((name) => ["value", name] as [Namespace, string]));
    const produced = source.map((name) => names.get("value", name));
    expect(new Set(produced).size).toBe(source.length);
    for (const name of produced) expect(name).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
  });
});
