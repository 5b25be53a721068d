import { describe, expect, it } from "vitest";
import SummaryReporter from "../support/summary-reporter.js";

/** What the reporter prints at the end of a run of these modules. */
function closingLine(modules: readonly unknown[]): string {
  const written: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => {
    written.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    new SummaryReporter().onTestRunEnd(modules as never);
  } finally {
    process.stdout.write = original;
  }
  return written.join("");
}

/** A test module as vitest reports it: its state and its tests' states. */
const testModule = (state: string, tests: readonly string[]) => ({
  state: () => state,
  children: {
    size: tests.length,
    allTests: function* () {
      for (const test of tests) yield { result: () => ({ state: test }) };
    },
  },
});

describe("summary reporter", () => {
  it("prints the plain closing line CI reads", () => {
    expect(closingLine([testModule("failed", ["passed", "failed"])])).toContain("1 passed, 1 failed, 0 skipped");
  });

  it("counts a file that failed outside its tests as a failure, its skipped tests and all", () => {
    // A beforeAll that throws: vitest marks the file failed and every test in it skipped.
    expect(closingLine([testModule("failed", ["skipped", "skipped"]), testModule("passed", ["passed"])])).toContain(
      "1 passed, 1 failed, 2 skipped",
    );
    expect(closingLine([testModule("failed", [])])).toContain("0 passed, 1 failed, 0 skipped");
  });
});
