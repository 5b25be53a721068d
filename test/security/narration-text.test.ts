/**
 * What `prosec run` narrates on stderr while a program runs quotes a model and the program: a
 * judgment's reason and answer, a caught step's error, what was wrong with an answer, a session's
 * label. None of it may reach the terminal (or a log a terminal shows later) as an escape sequence:
 * an OSC 52 clipboard write, an OSC 8 link dressed as text, a cleared screen, a cursor moved up to
 * overwrite a line already shown. The narration's own erase-line sequences are the only ones left.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createNarrator, type NarrationMode } from "../../src/run/narration.js";

type Event = Parameters<ReturnType<typeof createNarrator>["event"]>[0];

/** Writes the clipboard, links a word elsewhere, clears the screen, moves up a line and erases it, reverses what follows. */
const HOSTILE =
  "fine\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007\u001b[2J\u001b[1A\u001b[K\rover\u202eexe.txt\u009b2J";
/** Any of those. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const at = { line: 2, column: 3 };

/** A run whose model and program text are hostile at every place the narration quotes them. */
const EVENTS: readonly Event[] = [
  { type: "run-start", time: 0, runId: "r1", program: `p${HOSTILE}` } as Event,
  { type: "session-start", time: 0, at, label: `label ${HOSTILE}` },
  { type: "delta", time: 0, at, label: `label ${HOSTILE}`, step: "k", model: "m", text: "streamed", begins: true },
  { type: "session-end", time: 0, at, label: `label ${HOSTILE}`, usage: [], replayed: false },
  { type: "judgment", time: 0, at, question: `q ${HOSTILE}`, answer: `yes ${HOSTILE}`, reason: `because ${HOSTILE}` },
  {
    type: "unexpected-answer",
    time: 0,
    at,
    label: "The judgment",
    problem: "shape",
    action: "reask",
    attempt: 1,
    detail: `said ${HOSTILE}`,
  } as Event,
  { type: "assert", time: 0, at, id: "a1", passed: false, message: `assert ${HOSTILE}` } as Event,
  { type: "session-start", time: 0, at: { line: 4, column: 1 }, label: "s4" },
  {
    type: "step-caught",
    time: 0,
    at: { line: 4, column: 1 },
    label: "s4",
    cause: "error",
    replayed: false,
    message: `tool said ${HOSTILE}`,
  } as Event,
  { type: "fallback", time: 0, at, label: "s", from: `a${HOSTILE}`, to: "b", reason: `r${HOSTILE}` } as Event,
  { type: "notice", time: 0, message: `notice ${HOSTILE}` },
  { type: "error", time: 0, message: `error ${HOSTILE}` } as Event,
];

function narrated(mode: NarrationMode, tty: boolean): string {
  let written = "";
  const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
  if (tty) Object.assign(out, { isTTY: true, columns: 400 });
  const narrator = createNarrator(mode, out, false);
  for (const event of EVENTS) narrator.event(event);
  narrator.pause();
  return written;
}

describe("the narration of a hostile model's and program's text", () => {
  it("on a terminal, shows every quoted text without escape sequences or control characters", () => {
    const shown = narrated("live", true);
    // The quoted texts are there, their sequences gone.
    expect(shown).toContain("because fineclickoverexe.txt");
    expect(shown).toContain("tool said fineclickoverexe.txt");
    expect(shown).toContain("label fineclickoverexe.txt:\nstreamed");
    // Only the narration's own erase-line and line-up sequences remain.
    expect(shown.replace(/\r\u001b\[K|\u001b\[1A\u001b\[K/g, "")).not.toMatch(UNSAFE);
  });

  it("piped to a log, its lines carry none either", () => {
    const logged = narrated("plain", false);
    expect(logged).toContain("yes fineclickoverexe.txt");
    expect(logged).toContain("notice fineclickoverexe.txt");
    expect(logged).not.toMatch(UNSAFE);
  });

  it("a streamed answer piped keeps its bytes (it is the answer, not a report)", () => {
    let written = "";
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
    const narrator = createNarrator("live", out, false);
    narrator.event({ type: "session-start", time: 0, at, label: "s" });
    narrator.event({ type: "delta", time: 0, at, label: "s", step: "k", model: "m", text: HOSTILE, begins: true });
    expect(written).toContain(HOSTILE);
  });
});
