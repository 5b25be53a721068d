/**
 * Content anchors (runtime/anchors.ts): what a step is, independent of the line it is on.
 */
import { describe, expect, it } from "vitest";
import { anchorSubject, SourceAnchors } from "../../runtime/address/anchors.js";

const PROGRAM = `let draft = session "Write about {topic}"
  context: { notes }

loop until **the draft is ready** (max: 3):
  draft = session "Revise"
    context: draft

if ***the draft
  reads well*** and done:
  session "Ship it"
`;

describe("content anchors", () => {
  it("names the kind, the binding and a hash of the construct's own text", () => {
    const anchors = new SourceAnchors(PROGRAM);
    expect(anchors.of("session", { line: 1, column: 13 }, "draft")).toMatch(/^session:draft@[0-9a-f]{8}$/);
    expect(anchors.of("judge", { line: 4, column: 12 })).toMatch(/^judge:@[0-9a-f]{8}$/);
    expect(anchors.of("session", { line: 1, column: 13 }, "draft")).not.toBe(
      anchors.of("session", { line: 5, column: 11 }, "draft"),
    );
  });

  it("does not change when comments and blank lines are added above or inside a construct", () => {
    const before = new SourceAnchors(PROGRAM);
    const after = new SourceAnchors(
      `# A comment.\n\n${PROGRAM.replace("  context: { notes }", "  # why these notes\n\n  context: { notes }")}`,
    );
    expect(after.of("session", { line: 3, column: 13 }, "draft")).toBe(
      before.of("session", { line: 1, column: 13 }, "draft"),
    );
    expect(after.of("judge", { line: 8, column: 12 })).toBe(before.of("judge", { line: 4, column: 12 }));
    expect(after.of("judge", { line: 12, column: 4 })).toBe(before.of("judge", { line: 8, column: 4 }));
  });

  it("changes with the construct's text: its prompt template, its context, its condition", () => {
    const before = new SourceAnchors(PROGRAM);
    const prompt = new SourceAnchors(PROGRAM.replace("Write about", "Write on"));
    const context = new SourceAnchors(PROGRAM.replace("{ notes }", "{ notes, sources }"));
    const condition = new SourceAnchors(PROGRAM.replace("**the draft is ready**", "**the draft is done**"));
    expect(prompt.of("session", { line: 1, column: 13 }, "draft")).not.toBe(
      before.of("session", { line: 1, column: 13 }, "draft"),
    );
    expect(context.of("session", { line: 1, column: 13 }, "draft")).not.toBe(
      before.of("session", { line: 1, column: 13 }, "draft"),
    );
    expect(condition.of("judge", { line: 4, column: 12 })).not.toBe(before.of("judge", { line: 4, column: 12 }));
    // The loop's `(max: 3)` is not part of its condition.
    expect(new SourceAnchors(PROGRAM.replace("(max: 3)", "(max: 5)")).of("judge", { line: 4, column: 12 })).toBe(
      before.of("judge", { line: 4, column: 12 }),
    );
  });

  it("reads a *** condition across lines up to its closing marker", () => {
    const before = new SourceAnchors(PROGRAM).of("judge", { line: 8, column: 4 });
    expect(new SourceAnchors(PROGRAM.replace("and done", "and finished")).of("judge", { line: 8, column: 4 })).toBe(
      before,
    );
    expect(
      new SourceAnchors(PROGRAM.replace("reads well", "reads badly")).of("judge", { line: 8, column: 4 }),
    ).not.toBe(before);
  });

  it("falls back to the call site without the program's text", () => {
    expect(new SourceAnchors(undefined).of("session", { line: 4, column: 2 }, "x")).toBe("session@4:2");
    expect(new SourceAnchors("short").of("session", { line: 9, column: 1 })).toBe("session@9:1");
  });

  it("reads the kind and binding back out of a full anchor path", () => {
    expect(anchorSubject("/parallel:@0badf00d#0/b1/session:brief@3f2a9c1e#0")).toBe("session:brief");
    expect(anchorSubject("/use:critique:@0badf00d#0/judge:@3f2a9c1e#2")).toBe("judge:");
    expect(anchorSubject("/session@4:2#0")).toBeUndefined();
  });
});
