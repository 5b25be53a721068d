/**
 * A run's final result and outputs: escape sequences from the model never reach a terminal, and
 * piped or as JSON they keep their bytes.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { printOutputs } from "../../src/run/outputs.js";

const hostile = "Done\x1b]0;TITLE\x07\x1b]52;c;c2VjcmV0\x07\x1b[2J.";

function printed(tty: boolean, json: boolean, outputs: Record<string, string>, result?: string): string {
  let written = "";
  const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
  if (tty) Object.assign(out, { isTTY: true });
  printOutputs(outputs, json, "run-1", result, out);
  return written;
}

describe("printOutputs", () => {
  it("on a terminal, writes the final result and outputs without escape sequences", () => {
    expect(printed(true, false, {}, hostile)).toBe("Done.\n");
    expect(printed(true, false, { report: hostile })).toBe("## report\n\nDone.\n\n");
  });

  it("piped or as JSON, keeps the model's bytes", () => {
    expect(printed(false, false, {}, hostile)).toBe(`${hostile}\n`);
    expect(printed(false, false, { report: hostile })).toBe(`## report\n\n${hostile}\n\n`);
    expect(JSON.parse(printed(true, true, { report: hostile })).outputs.report).toBe(hostile);
  });
});
