/**
 * Bad input gets a clear error, never a crash, a hang or silent damage (issue 14): bytes that are
 * not UTF-8, binary files, things that are not files, a closed output pipe, deep nesting, one
 * enormous line, and `check` agreeing with `build`.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { blameCompiler, CompilerBug, internalErrorReport } from "../../src/diagnostics/compiler-bug.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { spellingWork } from "../../src/phases/1-parse/spelling.js";
import { checkSource } from "../../src/pipeline.js";
import { firstInvalidByte } from "../../src/cli/read-program.js";
import { prosec } from "../support/cli.js";
import { nested, nestingKinds } from "./nesting.js";

const bin = new URL("../../bin/prosec", import.meta.url).pathname;
const folder = realpathSync(mkdtempSync(join(tmpdir(), "prosec-bad-input-")));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return name;
}

describe("bytes that are not a program", () => {
  it("invalid UTF-8 is an error at its line and column, with a code frame", () => {
    file("latin1.prose", Buffer.concat([Buffer.from('let a = "ok"\nlet b = "caf'), Buffer.from([0xe9]), Buffer.from(' au lait"\n')]));
    const result = prosec(["check", "latin1.prose"], folder);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("latin1.prose:2:13 error P020 not valid UTF-8 at 2:13");
    expect(result.stdout).toContain('> 2 | let b = "caf');
  });

  it("finds the first malformed sequence: overlong forms, surrogates, truncated sequences", () => {
    expect(firstInvalidByte(Buffer.from("héllo ✓ 😀"))).toBe(-1);
    expect(firstInvalidByte(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstInvalidByte(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]))).toBe(2);
    expect(firstInvalidByte(Buffer.from([0xe2, 0x9c]))).toBe(0);
    expect(firstInvalidByte(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
  });

  it("a binary file is an error that never prints its bytes", () => {
    file("image.prose", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0a, 0x00, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x00, 0xff]));
    for (const format of ["text", "json"]) {
      const result = prosec(["check", "--format", format, "image.prose"], folder);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain("binary file");
      expect(result.stdout).not.toMatch(/[\u0000\u001b\ufffd]/);
    }
    expect(prosec(["build", "image.prose"], folder).stdout).toContain("P021");
  });

  it("a fifo, a device or a folder named as a program is refused at once (usage), never read", () => {
    execFileSync("mkfifo", [join(folder, "pipe.prose")]);
    for (const command of [["check"], ["build"], ["run"]]) {
      const result = prosec([...command, "pipe.prose"], folder);
      expect(result.status, command.join(" ")).toBe(2);
      expect(result.stderr).toContain("pipe.prose: not a regular file");
    }
    expect(prosec(["check", "/dev/null"], folder).stderr).toContain("not a regular file");
    mkdirSync(join(folder, "folder.prose"), { recursive: true });
    const run = prosec(["run", "folder.prose"], folder);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("folder.prose: is a folder");
  });
});

describe("a closed output pipe", () => {
  it("ends `check --format json` quietly (no stack trace), with the interrupted exit code", async () => {
    // Far more output than a pipe holds, so the writer is still writing when the reader leaves.
    file("noisy.prose", Array.from({ length: 4000 }, (_, index) => `let y${index} = missing`).join("\n"));
    const child = spawn(process.execPath, [bin, "check", "--format", "json", "noisy.prose"], { cwd: folder, env: { ...process.env, NO_COLOR: "1" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Like `| head -c 1`: read one chunk, then close the pipe.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(130);
  });
});

describe("check reports what build reports", () => {
  it("a program call with a missing or unknown input is E026 / E027 in both", () => {
    file("helper.prose", 'input topic: "t"\noutput o = session "x {topic}"\n');
    file("caller.prose", 'use "./helper.prose" as helper\nlet r = helper(subject: "x")\n');
    const check = prosec(["check", "caller.prose"], folder);
    const build = prosec(["build", "caller.prose"], folder);
    const codes = (output: string) => [...output.matchAll(/^\S+ error (\w+) .*$/gm)].map((match) => match[0]);
    expect(check.status).toBe(1);
    expect(build.status).toBe(1);
    expect(codes(check.stdout)).toEqual(["caller.prose:2:9 error E026 program `helper` needs input `topic`", "caller.prose:2:16 error E027 program `helper` has no input `subject`"]);
    expect(codes(build.stdout)).toEqual(codes(check.stdout));
  });

  it("a missing imported program is the same error in both", () => {
    file("orphan.prose", 'use "./nowhere.prose" as gone\nlet r = gone()\n');
    expect(prosec(["check", "orphan.prose"], folder).stdout).toContain("P030");
    expect(prosec(["build", "orphan.prose"], folder).stdout).toContain("P030");
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
    expect(checkSource(`let x = ${"not ".repeat(20_000)}true`).diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["P022"]);
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
    for (const make of [(n: number) => `${"x".repeat(n)} y`, (n: number) => `let a = ${"x".repeat(n)}`, (n: number) => `let ${"x".repeat(n)} = 1\nlet b = ${"x".repeat(n)}z`]) {
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
