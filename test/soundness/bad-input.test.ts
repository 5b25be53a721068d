/**
 * Bad input gets a clear error, never a crash, a hang or silent damage (issue 14), in process: deep
 * nesting, one enormous line, malformed UTF-8, internal errors. bad-input-cli.slow.test.ts drives
 * the CLI: encodings, binary files, non-files, a closed output pipe, `check` agreeing with `build`.
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { blameCompiler, CompilerBug, internalErrorReport } from "../../src/diagnostics/compiler-bug.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { spellingWork } from "../../src/phases/1-parse/spelling.js";
import { checkSource } from "../../src/pipeline.js";
import { firstInvalidByte } from "../../src/project/read-program.js";
import { nested, nestingKinds } from "./nesting.js";

describe("UTF-8", () => {
  it("finds the first malformed sequence: overlong forms, surrogates, truncated sequences", () => {
    expect(firstInvalidByte(Buffer.from("héllo ✓ 😀"))).toBe(-1);
    expect(firstInvalidByte(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstInvalidByte(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]))).toBe(2);
    expect(firstInvalidByte(Buffer.from([0xe2, 0x9c]))).toBe(0);
    expect(firstInvalidByte(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
  });
});

describe("nesting", () => {
  it.each(nestingKinds)("1,000 levels of %s are P022 in check and build, never a stack overflow", async (kind) => {
    const source = nested(kind, 1000);
    const checked = checkSource(source);
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toContain("P022");
    const compiled = await compile(source, "deep.prose");
    expect(compiled.code).toBeUndefined();
    expect(compiled.diagnostics.map((diagnostic) => diagnostic.code)).toContain("P022");
  });

  it("so deep that the parser itself would overflow: still P022", () => {
    expect(
      checkSource(`let x = ${"not ".repeat(20_000)}true`).diagnostics.map((diagnostic) => diagnostic.code),
    ).toEqual(["P022"]);
  });

  it("brackets that only group nest nothing: 20,000 of them compile", async () => {
    const compiled = await compile(`output x = ${"(".repeat(20_000)}1${")".repeat(20_000)}`, "parens.prose");
    expect(compiled.diagnostics).toEqual([]);
    expect(compiled.code).toContain('rt.bind({ line: 1, column: 8 }, "x", 1)');
  });
});

describe("one enormous line", () => {
  /** Edit-distance cells computed while checking `source`: the work that was quadratic. */
  function work(source: string): number {
    const before = spellingWork.cells;
    checkSource(source);
    return spellingWork.cells - before;
  }

  it("costs work linear in its length (counted, not timed)", () => {
    for (const make of [
      (n: number) => `${"x".repeat(n)} y`,
      (n: number) => `let a = ${"x".repeat(n)}`,
      (n: number) => `let ${"x".repeat(n)} = 1\nlet b = ${"x".repeat(n)}z`,
    ]) {
      const small = work(make(100_000));
      const large = work(make(200_000));
      expect(large).toBeLessThanOrEqual(2 * small + 100);
      expect(large).toBeLessThan(200_000 * 40);
    }
  });

  it("a 1 MB line gets one diagnostic, whose message quotes the name shortened", () => {
    const result = parse(`${"x".repeat(1_000_000)} y`);
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]!.message.length).toBeLessThan(200);
  });
});

describe("internal errors", () => {
  it("name the file that caused them and say it is prosec's bug", () => {
    const bug = (() => {
      try {
        blameCompiler("flows/research.prose", () => {
          throw new TypeError("x is undefined");
        });
      } catch (error) {
        return error;
      }
    })();
    expect(bug).toBeInstanceOf(CompilerBug);
    expect(internalErrorReport(bug)).toBe(
      "prosec: internal error while compiling flows/research.prose: x is undefined\nThis is a bug in prosec, not in your program: please report it, with flows/research.prose attached (PROSEC_DEBUG=1 prints where it failed).\n",
    );
  });
});
