import { describe, expect, it } from "vitest";
import { prosec } from "../support/cli.js";

describe("prosec usage errors", () => {
  it("stops before checking anything when the arguments are wrong", () => {
    for (const args of [
      ["check"],
      ["check", "fixtures", "--format", "xml"],
      ["check", "--no-such-option", "x.prose"],
    ]) {
      const result = prosec(args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stdout, args.join(" ")).toBe("");
      expect(result.stderr, args.join(" ")).toMatch(/Usage|prosec check <paths\.\.>/);
      expect(result.stderr, args.join(" ")).toMatch(/\n\nprosec: \S/);
    }
  });
});
