import { describe, expect, it } from "vitest";
import SummaryReporter from "../support/summary-reporter.js";

describe("summary reporter", () => {
  it("prints the plain closing line CI reads", () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      const fakeModule = {
        state: () => "passed",
        children: {
          size: 2,
          allTests: function* () {
            yield { result: () => ({ state: "passed" }) };
            yield { result: () => ({ state: "failed" }) };
          },
        },
      };
      new SummaryReporter().onTestRunEnd([fakeModule as never]);
    } finally {
      process.stdout.write = original;
    }
    expect(written.join("")).toContain("1 passed, 1 failed, 0 skipped");
  });
});
