import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";

describe("computed index keys", () => {
  it("are computed once, before the access that uses them", () => {
    const { code } = lowerSource('let a = session "a"\nlet c = session "c"\nlet x = a[a[c.d]]\n', "keys.prose");
    const lines = code!.split("\n");
    // `c.d` (line 3, column 15) is read once: reading a field of text may ask the model.
    expect(lines.filter((line) => line.includes("rt.field({ line: 3, column: 15 }"))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith("const $key"))).toEqual([
      'const $key = await rt.field({ line: 3, column: 15 }, c, "d");',
      'const $key2 = await rt.field({ line: 3, column: 11 }, a, typeof $key === "number" ? $key : text($key));',
    ]);
  });
});
