import { describe, expect, it } from "vitest";
import { prosec } from "../support/cli.js";

describe("prosec usage errors", () => {
  it("stops before checking anything when the arguments are wrong", () => {
    // The command's help, then what is wrong.
    for (const args of [["check"], ["check", "fixtures", "--format", "xml"]]) {
      const result = prosec(args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stdout, args.join(" ")).toBe("");
      expect(result.stderr, args.join(" ")).toMatch(/prosec check <paths\.\.>/);
      expect(result.stderr, args.join(" ")).toMatch(/\n\nprosec: \S/);
    }
    // A misspelt option: its suggestion, one line, and nothing else.
    const misspelt = prosec(["check", "--no-such-option", "x.prose"]);
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr).toBe("prosec: unknown option `--no-such-option`\n");
  });
});
