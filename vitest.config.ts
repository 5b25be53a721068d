import { defineConfig } from "vitest/config";

// `npm run test:fast` (PROSEC_TEST_FAST=1) is the edit-test loop: no DBOS (so no PostgreSQL) and no
// `*.slow.test.ts` (long property runs, real-process suites). `npm test` runs everything.
const fast = process.env["PROSEC_TEST_FAST"] === "1";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: fast ? ["**/node_modules/**", "test/dbos/**", "**/*.slow.test.ts"] : ["**/node_modules/**"],
    globalSetup: fast ? [] : ["./test/support/postgres.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
