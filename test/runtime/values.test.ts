import { describe, expect, it } from "vitest";
import { add, compare, divide, equals, isTruthy, multiply, ProseError, subtract, text } from "../../runtime/index.js";

describe("text", () => {
  it("shows text as is, scalars as written, null as empty", () => {
    expect(text("a {b}\n")).toBe("a {b}\n");
    expect(text(3.5)).toBe("3.5");
    expect(text(false)).toBe("false");
    expect(text(null)).toBe("");
  });
  it("shows a list of texts as a markdown list and other structures as JSON", () => {
    expect(text(["one", "two\nlines"])).toBe("- one\n- two\n  lines");
    expect(text([1, "a"])).toBe('[\n  1,\n  "a"\n]');
    expect(text({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
  it("shows an empty list as JSON, never as nothing", () => {
    expect(text([])).toBe("[]");
    expect(text({ a: [] })).toBe('{\n  "a": []\n}');
  });
});

describe("arithmetic", () => {
  it("adds numbers, numeric text next to a number, lists and records; joins text otherwise", () => {
    expect(add(1, 2)).toBe(3);
    expect(add("4\n", 1)).toBe(5);
    expect(add(["a"], "b")).toEqual(["a", "b"]);
    expect(add("z", ["a"])).toEqual(["z", "a"]);
    expect(add([1], [2, 3])).toEqual([1, 2, 3]);
    expect(add({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 });
    expect(add("Count: ", "3")).toBe("Count: 3");
    expect(add("n=", 3)).toBe("n=3");
  });
  it("subtracts, multiplies and divides numbers and numeric text", () => {
    expect(subtract(5, "2")).toBe(3);
    expect(multiply("3", 4)).toBe(12);
    expect(divide(9, 3)).toBe(3);
  });
  it("refuses non-numbers and division by zero with a ProseError", () => {
    expect(() => subtract("abc", 1)).toThrow(ProseError);
    expect(() => subtract("abc", 1)).toThrow(/both must be numbers/);
    expect(() => divide(1, 0)).toThrow(/Division by zero/);
  });
});

describe("equals and compare", () => {
  it("compares structurally, trimming text, numbers with numeric text, booleans with true/false text", () => {
    expect(equals("yes\n", "yes")).toBe(true);
    expect(equals("Yes", "yes")).toBe(false);
    expect(equals(3, "3.0")).toBe(true);
    expect(equals(true, " TRUE ")).toBe(true);
    expect(equals([1, { a: "x" }], [1, { a: "x " }])).toBe(true);
    expect(equals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(equals(null, null)).toBe(true);
    expect(equals(null, "")).toBe(false);
    expect(equals("x", ["x"])).toBe(false);
  });
  it("orders numbers numerically (numeric text too) and text by code points", () => {
    expect(compare("10", 9)).toBeGreaterThan(0);
    expect(compare(2, 10)).toBeLessThan(0);
    expect(compare("apple", "banana")).toBeLessThan(0);
    expect(compare(" b", "b")).toBe(0);
    expect(() => compare([1], 2)).toThrow(/Cannot compare a list/);
  });
});

describe("isTruthy", () => {
  it("is false for empty and negative values and true otherwise", () => {
    for (const falsy of [false, null, 0, "", "  ", "false", "No", "0", "null", [], {}])
      expect(isTruthy(falsy)).toBe(false);
    for (const truthy of [true, 1, -1, "x", "yes", "nope", [0], { a: null }]) expect(isTruthy(truthy)).toBe(true);
  });
});
