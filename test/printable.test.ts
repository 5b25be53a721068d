/**
 * A model's text never sends an escape sequence to the user's terminal; labels lose control characters.
 */
import { describe, expect, it } from "vitest";
import { printable, terminalText } from "../src/printable.js";

describe("terminalText", () => {
  it("removes OSC (title, clipboard), CSI and other escape sequences, keeping the text", () => {
    expect(terminalText("a\x1b]0;TITLE\x07b")).toBe("ab");
    expect(terminalText("a\x1b]52;c;aGVsbG8=\x1b\\b")).toBe("ab");
    expect(terminalText("\x1b[2Jclear\x1b[31mred\x1b[0m")).toBe("clearred");
    expect(terminalText("x\x9b2Jy\x9d0;T\x9cz")).toBe("xyz");
    expect(terminalText("\x1bPdcs\x1b\\ok\x1bc")).toBe("ok");
  });

  it("removes an unterminated sequence and every control character but line feed and tab", () => {
    expect(terminalText("text\x1b]0;title never ends")).toBe("text");
    expect(terminalText("a\x00b\x07c\x08d\x7fe\x85f\r\ng\rh")).toBe("abcdef\ngh");
    expect(terminalText("tab\there\nnext ünïcode ✓")).toBe("tab\there\nnext ünïcode ✓");
  });

  it("removes bidirectional overrides, isolates and marks, which reorder what a terminal shows", () => {
    // Shown right to left, "\u202eexe.txt" reads "txt.exe".
    expect(terminalText("report\u202etxt.exe\u202c done")).toBe("reporttxt.exe done");
    expect(terminalText("\u2066a\u2067b\u2068c\u2069\u200ed\u200fe\u202a\u202b\u202d")).toBe("abcde");
    expect(terminalText("עברית and العربية")).toBe("עברית and العربية");
  });

  it("leaves no ESC in any text", () => {
    const nasty = "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b[?1049h \x1b(0 \x1b\x1b[1;1H \x1b";
    expect(terminalText(nasty)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });
});

describe("printable", () => {
  it("turns control characters into spaces and lone surrogates into U+FFFD", () => {
    expect(printable("a\x1b[2Jb\ud800")).toBe("a [2Jb\ufffd");
  });
});
