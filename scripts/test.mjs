#!/usr/bin/env node
// `npm test`: the build, then vitest beside lint and type-check. The tests need the build (the CLI suites
// run dist/); lint and tsc read only sources, so they run during the tests instead of before them (on a
// 2-core machine that was most of a minute of the ten the run may take). Their output is held and printed
// whole, each under a line with its name, its time and how it ended, once the tests are done, so that it
// never interleaves with vitest's. The run fails if any of them fails.
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const running = new Set();

/** Runs `npm run <script>` with its output held; how it ended and what it printed. */
function check(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on("close", (code, signal) => {
      running.delete(child);
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      const ok = code === 0;
      const how = ok ? "passed" : `failed (${signal ?? `exit code ${code}`})`;
      resolve({
        script,
        ok,
        code: code ?? 1,
        report: () => {
          process.stdout.write(`\n── npm run ${script}: ${how} in ${seconds} s\n`);
          process.stdout.write(Buffer.concat(output));
        },
      });
    });
  });
}

const build = await check("build");
build.report();
if (!build.ok) {
  process.stderr.write("\nnpm test: the build failed (above); no test was run\n");
  process.exit(build.code);
}

const checks = Promise.all(["lint", "typecheck"].map(check));
process.stdout.write("\n── vitest run\n");
const tests = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
// Ctrl-C reaches vitest and the checks from the terminal itself; a SIGTERM sent to this process alone is passed on.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => {
  tests.kill("SIGTERM");
  for (const child of running) child.kill("SIGTERM");
});
const testsExit = await new Promise((resolve) =>
  tests.on("close", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : 1))),
);
const results = await checks;
for (const result of results) result.report();
const failed = results.filter((result) => !result.ok);
if (failed.length > 0)
  process.stderr.write(`\nnpm test: ${failed.map((result) => result.script).join(", ")} failed (above)\n`);
process.exit(testsExit !== 0 ? testsExit : (failed[0]?.code ?? 0));
