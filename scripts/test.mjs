#!/usr/bin/env node
// `npm test`: lint, build and type-check side by side (none reads what another writes: the build writes
// a new .dist/ folder the linters and tsc ignore, and the grammar by one rename), then every test.
// Each check's output is held and printed whole when it ends, under a line with its name, its time and
// how it ended, so that three outputs never interleave; the tests run only when all three pass.
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const CHECKS = ["lint", "build", "typecheck"];

/** Runs `npm run <script>` with its output held; how it ended. */
function check(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const ok = code === 0;
      const how = ok ? "passed" : `failed (${signal ?? `exit code ${code}`})`;
      process.stdout.write(`\n── npm run ${script}: ${how} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve({ script, ok, code: code ?? 1 });
    });
  });
}

const results = await Promise.all(CHECKS.map(check));
const failed = results.filter((result) => !result.ok);
if (failed.length > 0) {
  process.stderr.write(
    `\nnpm test: ${failed.map((result) => result.script).join(", ")} failed (above); no test was run\n`,
  );
  process.exit(failed[0].code || 1);
}

process.stdout.write("\n── vitest run\n");
const tests = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
// Ctrl-C reaches vitest from the terminal itself; a SIGTERM sent to this process alone is passed on.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => tests.kill("SIGTERM"));
tests.on("close", (code, signal) => process.exit(code ?? (signal === "SIGINT" ? 130 : 1)));
