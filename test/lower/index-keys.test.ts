import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";

describe("computed index keys", () => {
  it("are computed once", () => {
    const { code } = lowerSource('let a = session "a"\nlet c = session "c"\nlet x = a[a[c.d]]\n', "keys.prose");
    // `c.d` (line 3, column 15) is read once: reading a field of text may ask the model.
    expect(code!.split("rt.field({ line: 3, column: 15 }")).toHaveLength(2);
    expect(code).toContain(
      'await rt.field({ line: 3, column: 9 }, a, await rt.field({ line: 3, column: 11 }, a, await rt.field({ line: 3, column: 15 }, c, "d")))',
    );
  });
});
