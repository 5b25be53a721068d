import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["./test/support/postgres.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
