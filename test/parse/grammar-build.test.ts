import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/cli.js";

describe("compiled grammar", () => {
  it("is up to date with grammar/prose.ne (run `npm run grammar` after editing it)", async () => {
    const { compileGrammar } = (await import("../../scripts/compile-grammar.mjs" as string)) as {
      compileGrammar: (root: string) => string;
    };
    const committed = readFileSync(new URL("../../src/phases/1-parse/grammar.ts", import.meta.url), "utf8");
    expect(committed === compileGrammar(repositoryRoot)).toBe(true);
  });
});
