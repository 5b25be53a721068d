/**
 * `prosec check` (and every command that reports a program's problems) on someone else's program:
 * the frame quotes its source, and a string may hold a raw ESC. Control characters become spaces,
 * so nothing reaches a terminal as an escape sequence and the caret still points where it did.
 */
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../src/diagnostics/format.js";
import { checkSource } from "../../src/pipeline.js";

describe("a program's text in a diagnostic", () => {
  it("reaches the report without control characters, the frame's columns unchanged", () => {
    // Sets the window title, writes the clipboard (OSC 52), returns the cursor to overwrite the line.
    const hostile = "x\u001b]0;TITLE\u0007\u001b]52;c;ZWNobyBo\u0007\rok";
    const source = `agent a:\n  permissions:\n    read: "${hostile}"\nsession: a\n  prompt: "hi"\n`;
    const [warning] = checkSource(source).diagnostics;
    expect(warning?.code).toBe("W009");
    for (const color of [false, true]) {
      const report = formatDiagnostic("p.prose", source, warning!, { color });
      expect(report).not.toContain("\u001b]");
      expect(report).not.toContain("\u0007");
      expect(report).not.toMatch(/\r(?!\n)/);
      if (!color) {
        const lines = report.split("\n");
        const quoted = lines.find((line) => line.startsWith(">"))!;
        const caret = lines[lines.indexOf(quoted) + 1]!;
        // The caret starts under the string's opening quote, as it would in the file.
        expect(quoted[caret.indexOf("^")]).toBe('"');
        expect(caret.lastIndexOf("^") - caret.indexOf("^") + 1).toBe(hostile.length + 2);
      }
    }
    // Windows line endings stay line endings.
    const crlf = formatDiagnostic("p.prose", source.replace(/\n/g, "\r\n"), warning!);
    expect(crlf).toContain("> 3 |");
  });

  it("shows a line too long to read as a window around the place, the caret still on it", () => {
    // One hostile line can be megabytes: the frame quoted it whole, twice (the line and its caret line).
    const source = `let x = 1\nsession "${"a".repeat(5_000)} {nope} ${"b".repeat(5_000)}"\nlet y = 2\n`;
    const warning = checkSource(source).diagnostics.find((diagnostic) => diagnostic.code === "P002")!;
    expect(warning.range.start.column).toBeGreaterThan(5_000);
    const report = formatDiagnostic("p.prose", source, warning);
    const lines = report.split("\n");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(200);
    const quoted = lines.find((line) => line.startsWith("> 2 |"))!;
    expect(quoted).toMatch(/\| …a+ \{nope\} b+…$/);
    const caret = lines[lines.indexOf(quoted) + 1]!;
    expect(quoted.slice(caret.indexOf("^"), caret.lastIndexOf("^") + 1)).toBe("{nope}");
    // The lines around it keep their numbers and their text.
    expect(report).toContain("  1 | let x = 1");
    expect(report).toContain("  3 | let y = 2");
  });
});
