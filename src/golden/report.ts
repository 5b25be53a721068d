/**
 * How `prosec test` reports, the way test runners do: one line per test (`✓ name` / `✗ name`) with
 * what failed indented under it, then a summary whose last line is `N passed, N failed`; or one JSON
 * document with `--format json`.
 */
import { text, type Value } from "../../runtime/index.js";
import { terminalText } from "../printable.js";
import { what, where, type Failure, type GoldenResult } from "./run-golden.js";

const PREVIEW = 300;

export function formatResult(
  result: GoldenResult,
  options: { readonly color: boolean; readonly writePending: boolean },
): string {
  const paint = (code: number, value: string): string => (options.color ? `\u001b[${code}m${value}\u001b[0m` : value);
  const lines = [
    `${result.passed ? paint(32, "✓") : paint(31, "✗")} ${terminalText(result.name)}${result.program === undefined ? "" : paint(2, ` (${terminalText(result.program)})`)}`,
  ];
  // What a failure shows comes from the recording and the model: no escape sequence of theirs is printed.
  for (const failure of result.failures)
    lines.push(
      ...indent(
        describeFailure(failure).flatMap((line) => terminalText(line).split("\n")),
        "    ",
      ),
    );
  if (result.failures.some((failure) => failure.kind === "missing-step") && !options.writePending) {
    lines.push(
      "    answer the missing steps by hand: prosec test --write-pending writes them to answers.json in the test's folder",
    );
  }
  for (const step of result.changed)
    lines.push(
      `    ~ ${terminalText(`${where(step)}: ${what(step)}`)} asks something else than when it was recorded (its recorded answer was used)`,
    );
  for (const file of result.written) lines.push(`    wrote ${terminalText(file)}`);
  return lines.join("\n");
}

export function formatSummary(results: readonly GoldenResult[]): string {
  const passed = results.filter((result) => result.passed).length;
  const changed = results.reduce((sum, result) => sum + result.changed.length, 0);
  const notes =
    changed === 0
      ? ""
      : `${changed} replayed ${changed === 1 ? "step asks" : "steps ask"} something else than when recorded (~ above)\n`;
  return `\n${notes}${passed} passed, ${results.length - passed} failed`;
}

export function toJson(results: readonly GoldenResult[]): object {
  const passed = results.filter((result) => result.passed).length;
  return {
    tests: results.map((result) => ({ ...result, status: result.passed ? "passed" : "failed" })),
    passed,
    failed: results.length - passed,
  };
}

function describeFailure(failure: Failure): string[] {
  switch (failure.kind) {
    case "missing-step":
      return [failure.message, ...indent(labelled("asks: ", clip(failure.step!.asked)), "  ")];
    case "output":
      return [
        failure.message,
        ...indent(
          [
            ...(failure.expected === undefined ? [] : labelled("expected: ", show(failure.expected))),
            ...(failure.actual === undefined ? [] : labelled("actual:   ", show(failure.actual))),
          ],
          "  ",
        ),
      ];
    default:
      return failure.message.split("\n");
  }
}

/** `label` before the first line of `value`, the other lines aligned under it. */
function labelled(label: string, value: string): string[] {
  return value.split("\n").map((line, index) => `${index === 0 ? label : " ".repeat(label.length)}${line}`);
}

function show(value: Value): string {
  return clip(typeof value === "string" ? JSON.stringify(value) : text(value));
}

function clip(shown: string): string {
  return shown.length <= PREVIEW ? shown : `${shown.slice(0, PREVIEW - 1)}…`;
}

function indent(lines: readonly string[], by: string): string[] {
  return lines.map((line) => `${by}${line}`);
}
