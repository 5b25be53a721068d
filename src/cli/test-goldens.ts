/**
 * `prosec test`: replays every golden test under the paths, one line each as it finishes, then the
 * summary; exit 0 when all passed, 1 when any failed. Loaded only when the command runs (it brings the
 * TypeScript compiler and the SDK).
 */
import { formatResult, formatSummary, toJson } from "../golden/report.js";
import { findGoldens, saveGolden, testGolden, type GoldenResult } from "../golden/run-golden.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { jsonText } from "../json-text.js";

/** What `prosec test` was given (see test-command.ts). */
export interface TestArguments {
  readonly paths: readonly string[];
  readonly save?: readonly string[];
  readonly update: boolean;
  readonly writePending: boolean;
  readonly format: "text" | "json";
  readonly strict: boolean;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

export async function runTests(argv: TestArguments): Promise<ExitCode> {
  const cwd = process.cwd();
  const options = { cwd, strict: argv.strict, update: argv.update, writePending: argv.writePending };
  const color = argv.format === "text" && process.stdout.isTTY === true && !process.env["NO_COLOR"];
  const results: GoldenResult[] = [];
  const report = (result: GoldenResult): void => {
    results.push(result);
    if (argv.format === "text")
      process.stdout.write(`${formatResult(result, { color, writePending: argv.writePending })}\n`);
  };
  if (argv.save !== undefined) {
    const [runId, name] = argv.save;
    if (runId === undefined || name === undefined || !RUN_ID.test(runId))
      throw new UsageError("--save takes a run id and a test name: prosec test --save 20260115-143052-a7b3c9 checkout");
    report(await saveGolden(runId, name, options));
  } else {
    for (const dir of findGoldens(argv.paths, cwd)) report(await testGolden(dir, options));
  }
  process.stdout.write(argv.format === "json" ? `${jsonText(toJson(results), 2)}\n` : `${formatSummary(results)}\n`);
  return results.every((result) => result.passed) ? EXIT.ok : EXIT.failed;
}
