import { describe, expect, it } from "vitest";
import { EXIT, exitCodeOfDiagnostics } from "../../src/exit-codes.js";
import { parse } from "../../src/phases/1-parse/index.js";

const diagnosticsOf = (source: string) => parse(source).diagnostics;

describe("a program's diagnostics as an exit code", () => {
  it("is ok for a clean program and for warnings only, failed for the program's errors", () => {
    expect(exitCodeOfDiagnostics(diagnosticsOf('session "Hi"\n'))).toBe(EXIT.ok);
    expect(exitCodeOfDiagnostics([{ ...diagnosticsOf('session "x\n')[0]!, severity: "warning" }])).toBe(EXIT.ok);
    expect(exitCodeOfDiagnostics(diagnosticsOf('session "unterminated\n'))).toBe(EXIT.failed);
  });

  it("is internal when the compiler reports its own bug (P000), whatever else is wrong", () => {
    const programError = diagnosticsOf('session "unterminated\n');
    const bug = { ...programError[0]!, code: "P000" as const, message: "internal compiler error: boom" };
    expect(exitCodeOfDiagnostics([...programError, bug])).toBe(EXIT.internal);
  });
});
