import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends a run with the plain `N passed, N failed, N skipped` line that CI reads, whatever reporter
 * shows the details above it.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedHere = 0;
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else skipped++;
      }
      // A file that failed outside its tests (on import, or in a beforeAll: its tests are then skipped)
      // is a failure of its own.
      failed += testModule.state() === "failed" && failedHere === 0 ? 1 : failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
