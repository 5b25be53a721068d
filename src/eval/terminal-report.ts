/** The eval's report as a table for the terminal (stdout). */
import { terminalText } from "../printable.js";
import { casePassed, type CaseResult } from "./case-result.js";
import { describeChange, formatDollars, formatRate, formatSeconds, type EvalReport } from "./report.js";

export function terminalReport(report: EvalReport): string {
  const lines: string[] = [];
  const times = report.repeat === 1 ? "" : ` × ${report.repeat}`;
  lines.push(
    `eval ${report.evalId} · ${report.program} · ${report.planned / report.repeat} cases${times} · ${report.scored} scored, ${report.errors} ${report.errors === 1 ? "error" : "errors"}${report.finished < report.planned ? `, ${report.planned - report.finished} not run` : ""}`,
  );
  lines.push("");
  const rows: string[][] = report.asserts.map((assert) => [assert.id, `line ${assert.line}`, formatRate(assert)]);
  rows.push(["every assert of a case", "", formatRate(report.overall)]);
  const header = ["ASSERT", "WHERE", "PASSED  RATE (95% INTERVAL)"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  for (const row of [header, ...rows])
    lines.push(
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join("  ")
        .trimEnd(),
    );

  const failing = report.cases.filter((result) => result.status === "scored" && !casePassed(result));
  if (failing.length > 0) {
    lines.push("", "Failing cases:");
    for (const result of failing) {
      lines.push(
        `  ${caseName(result, report.repeat)} · ${formatDollars(result.dollars)} · ${formatSeconds(result.ms)} · run ${result.runId}`,
      );
      for (const outcome of result.asserts.filter((candidate) => !candidate.passed))
        lines.push(
          `    ✗ ${outcome.message ?? outcome.id}${outcome.judge === undefined ? "" : ` — the judge: ${outcome.judge.answer}${outcome.judge.reason === "" ? "" : ` (${outcome.judge.reason})`}`}`,
        );
    }
  }
  const errors = report.cases.filter((result) => result.status === "error");
  if (errors.length > 0) {
    lines.push("", "Errors (neither passed nor failed):");
    for (const result of errors)
      lines.push(`  ${caseName(result, report.repeat)} · run ${result.runId}: ${result.error ?? "?"}`);
  }
  const comparison = report.comparison;
  if (comparison !== undefined && (comparison.baseline !== undefined || comparison.min !== undefined)) {
    const against = [
      ...(comparison.baseline === undefined ? [] : [`the baseline ${comparison.baseline}`]),
      ...(comparison.min === undefined ? [] : [`--min ${comparison.min}`]),
    ].join(" and ");
    lines.push("", `Against ${against}:`);
    for (const change of comparison.changes)
      if ((change.kind !== "same" && change.kind !== "held") || change.fails)
        lines.push(`  ${change.fails ? "✗" : "·"} ${change.id}: ${describeChange(change)}`);
    lines.push(comparison.failed ? "  FAILED" : "  passed");
  }
  lines.push("", `${formatDollars(report.dollars)} · ${formatSeconds(report.wallMs)}`);
  if (report.stopped !== undefined)
    lines.push(`${report.stopped.message} Go on with: prosec eval --resume ${report.evalId}`);
  const first = failing[0] ?? errors[0];
  if (first !== undefined) lines.push(`Open a case's run: prosec view ${first.runId}`);
  // A judge's reason, a case's name and an error are a model's or a file's text: no escape sequence is printed.
  return terminalText(`${lines.join("\n")}\n`);
}

/**
 * The line `prosec eval` prints on stderr as each case ends. The case's name is the cases file's and
 * its error may quote a model or an endpoint: no escape sequence is printed, as in the report.
 */
export function caseLine(result: CaseResult, repeats: number): string {
  const held = result.asserts.filter((outcome) => outcome.passed).length;
  const mark = result.status === "error" ? "!" : held === result.asserts.length ? "✓" : "✗";
  const what = result.status === "error" ? `error: ${result.error}` : `${held}/${result.asserts.length} asserts held`;
  const name = `${result.case}${repeats === 1 ? "" : ` #${result.repeat}`}`;
  return terminalText(
    `${mark} ${name} · ${what} · ${formatDollars(result.dollars)} · ${formatSeconds(result.ms)}`.replace(/\n/g, " "),
  );
}

function caseName(result: { readonly case: string; readonly repeat: number }, repeats: number): string {
  return `"${result.case}"${repeats === 1 ? "" : ` #${result.repeat}`}`;
}
