import { readlinkSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// `npm run test:fast` (PROSEC_TEST_FAST=1) is the edit-test loop: no DBOS (so no PostgreSQL) and no
// `*.slow.test.ts` (long property runs, real-process suites). `npm test` runs everything. Both make sure
// bubblewrap is installed (the OS sandbox of agents' commands).
const fast = process.env["PROSEC_TEST_FAST"] === "1";

/** The DBOS suites and the slow ones: each file in a fresh module graph (DBOS's SDK is one per process). */
const ISOLATED = ["test/dbos/**/*.test.ts", "test/**/*.slow.test.ts"];

/** What every test file runs under. */
const perFile = { setupFiles: ["./test/support/each-file.ts"], testTimeout: 60_000, hookTimeout: 60_000 };

// The other files share their workers' modules: loading vitest, the compiler and its dependencies afresh
// for each file was over a third of their time. The fast loop is these files alone; the full run has
// them as a project beside the isolated one.
const shared = {
  ...perFile,
  name: "shared",
  include: ["test/**/*.test.ts"],
  exclude: ["**/node_modules/**", ...ISOLATED],
  isolate: false,
};
const isolated = { ...perFile, name: "isolated", include: ISOLATED, isolate: true };

/** The build dist/ links to now (scripts/build.mjs makes each build a folder of its own), if any. */
function currentBuild(): string | undefined {
  try {
    return readlinkSync(fileURLToPath(new URL("./dist", import.meta.url)));
  } catch {
    return undefined;
  }
}

/**
 * The edit loop's module cache keys a module that imports from dist/ by the build dist/ links to: the
 * cached code holds the import resolved through the link, which a new build leaves pointing at a
 * folder that is gone.
 */
const buildInCacheKey: Plugin = {
  name: "prosec:build-in-cache-key",
  configureVitest({ experimental_defineCacheKeyGenerator }) {
    experimental_defineCacheKeyGenerator(({ sourceCode }) =>
      sourceCode.includes("dist/") ? currentBuild() : undefined,
    );
  },
};

export default defineConfig({
  plugins: fast ? [buildInCacheKey] : [],
  test: {
    // Projects are not extended from this config: Vitest 4 would run its globalSetup again for each.
    ...(fast ? shared : { projects: [{ test: shared }, { test: isolated }] }),
    // The temp folder first: PostgreSQL's throwaway server lives in it, and teardowns run in reverse.
    globalSetup: fast
      ? ["./test/support/temp-folder.ts", "./test/support/bubblewrap.ts"]
      : [
          "./test/support/temp-folder.ts",
          "./test/support/postgres.ts",
          "./test/support/bubblewrap.ts",
          "./test/support/chromium.ts",
        ],
    // Vitest leaves a core free by default (one worker on a 2-core machine), which kept the full run over
    // ten minutes: every core runs a file. Its suites spawn prosec and PostgreSQL, and were written to
    // hold under load (each DBOS test has a database of its own).
    maxWorkers: availableParallelism(),
    // The edit loop keeps the transformed modules on disk between runs (a folder under node_modules, dropped
    // with node_modules or by `vitest --clearCache`): transforming them again was about a fifth of its time.
    experimental: { fsModuleCache: fast },
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
