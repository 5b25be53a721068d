import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// `npm run test:fast` (PROSEC_TEST_FAST=1) is the edit-test loop: no DBOS (so no PostgreSQL) and no
// `*.slow.test.ts` (long property runs, real-process suites). `npm test` runs everything. Both make sure
// bubblewrap is installed (the OS sandbox of agents' commands).
const fast = process.env["PROSEC_TEST_FAST"] === "1";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: fast ? ["**/node_modules/**", "test/dbos/**", "**/*.slow.test.ts"] : ["**/node_modules/**"],
    // The temp folder first: PostgreSQL's throwaway server lives in it, and teardowns run in reverse.
    globalSetup: fast
      ? ["./test/support/temp-folder.ts", "./test/support/bubblewrap.ts"]
      : [
          "./test/support/temp-folder.ts",
          "./test/support/postgres.ts",
          "./test/support/bubblewrap.ts",
          "./test/support/chromium.ts",
        ],
    setupFiles: ["./test/support/each-file.ts"],
    // The fast loop's files share their workers' modules (no DBOS there, whose SDK is one per process):
    // loading vitest, the compiler and its dependencies afresh for each file was over a third of its time.
    isolate: !fast,
    // Vitest leaves a core free by default (one worker on a 2-core machine), which kept the full run over
    // ten minutes: every core runs a file. Its suites spawn prosec and PostgreSQL, and were written to
    // hold under load (each DBOS test has a database of its own).
    maxWorkers: availableParallelism(),
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
