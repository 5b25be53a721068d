import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withCodeTable } from "../../src/diagnostics/code-table.js";
import { diagnosticCodes } from "../../src/diagnostics/codes.js";

const page = readFileSync(new URL("../../docs/diagnostics.md", import.meta.url), "utf8");
const messages = readFileSync(new URL("../../src/diagnostics/messages.ts", import.meta.url), "utf8");

describe("the table of diagnostic codes", () => {
  it("is in docs/diagnostics.md as src/diagnostics/codes.ts has it (run `npm run codes` when this fails)", () => {
    expect(page).toBe(withCodeTable(page));
  });

  it("lists only codes that some message reports", () => {
    const unused = Object.keys(diagnosticCodes).filter((code) => !messages.includes(`"${code}"`));
    expect(unused).toEqual([]);
  });
});
