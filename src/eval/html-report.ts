/**
 * The eval's report as one self-contained HTML page (`--html FILE`): no script, nothing loaded from
 * anywhere (its Content-Security-Policy allows nothing but its inline style). A row per case opens to
 * the case's summary (its asserts with the judge's answers, its error, cost and time) and the
 * `prosec view RUN` command that opens its run: the view server needs its token, so a static page
 * cannot link into it. The report's JSON is embedded too, for tools that read the page.
 */
import { escapeXml } from "../graph/to-svg.js";
import { casePassed, type CaseResult } from "./case-result.js";
import { describeChange, formatDollars, formatSeconds, percent, type EvalReport } from "./report.js";
import type { Rate } from "./summary.js";

export function htmlReport(report: EvalReport): string {
  const e = escapeXml;
  const rateCells = (rate: Rate): string =>
    `<td>${rate.passes}/${rate.trials}</td><td>${percent(rate.rate)}</td><td>${percent(rate.low)}–${percent(rate.high)}</td><td>${bar(rate)}</td>`;
  const asserts = report.asserts
    .map((assert) => `<tr><td>${e(assert.id)}</td><td>${assert.line}</td>${rateCells(assert)}</tr>`)
    .join("\n");
  const comparison =
    report.comparison === undefined || (report.comparison.baseline === undefined && report.comparison.min === undefined)
      ? ""
      : `<section class="panel"><h2>Against ${e(
          [
            ...(report.comparison.baseline === undefined ? [] : [`the baseline ${report.comparison.baseline}`]),
            ...(report.comparison.min === undefined ? [] : [`--min ${report.comparison.min}`]),
          ].join(" and "),
        )}: <span class="badge ${report.comparison.failed ? "bad" : "good"}">${report.comparison.failed ? "failed" : "passed"}</span></h2><ul>${report.comparison.changes
          .map(
            (change) => `<li class="${change.fails ? "bad" : ""}">${e(change.id)}: ${e(describeChange(change))}</li>`,
          )
          .join("")}</ul></section>`;
  const cases = report.cases.map((result) => caseRow(result, report.repeat)).join("\n");
  const stopped =
    report.stopped === undefined
      ? ""
      : `<p class="bad">${e(report.stopped.message)} Go on with <code>prosec eval --resume ${e(report.evalId)}</code>.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>eval ${e(report.evalId)} · ${e(report.program)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>eval ${e(report.evalId)} · ${e(report.program)}</h1>
<p>${report.planned / report.repeat} cases${report.repeat === 1 ? "" : ` × ${report.repeat}`} · ${report.scored} scored · ${report.errors} ${report.errors === 1 ? "error" : "errors"}${report.finished < report.planned ? ` · ${report.planned - report.finished} not run` : ""} · ${e(formatDollars(report.dollars))} · ${e(formatSeconds(report.wallMs))}</p>
${stopped}
<section class="panel"><h2>Pass rates (95% Wilson intervals)</h2>
<table><thead><tr><th>assert</th><th>line</th><th>passed</th><th>rate</th><th>interval</th><th></th></tr></thead><tbody>
${asserts}
<tr class="overall"><td>every assert of a case</td><td></td>${rateCells(report.overall)}</tr>
</tbody></table></section>
${comparison}
<section class="panel"><h2>Cases</h2>
${cases}
</section>
</main>
<script type="application/json" id="prosec-eval-report">${jsonForScript(report)}</script>
</body>
</html>
`;
}

function caseRow(result: CaseResult, repeats: number): string {
  const e = escapeXml;
  const status = result.status === "error" ? "error" : casePassed(result) ? "passed" : "failed";
  const name = `${result.case}${repeats === 1 ? "" : ` #${result.repeat}`}`;
  const asserts = result.asserts
    .map(
      (outcome) =>
        `<li class="${outcome.passed ? "good" : "bad"}">${outcome.passed ? "✓" : "✗"} ${e(outcome.message ?? outcome.id)} <span class="dim">line ${outcome.line}</span>${
          outcome.judge === undefined
            ? ""
            : `<br><span class="judge">the judge: ${e(outcome.judge.answer)}${outcome.judge.reason === "" ? "" : ` — ${e(outcome.judge.reason)}`}</span>`
        }</li>`,
    )
    .join("");
  return `<details class="case ${status}"><summary><span class="badge ${status === "passed" ? "good" : "bad"}">${status}</span> ${e(name)} <span class="dim">· ${e(formatDollars(result.dollars))} · ${e(formatSeconds(result.ms))} · ${result.calls} calls</span></summary>
<div class="body">${result.error === undefined ? "" : `<p class="bad">${e(result.error)}</p>`}<ul>${asserts}</ul>
<p>Open its run: <code>prosec view ${e(result.runId)}</code></p></div></details>`;
}

function bar(rate: Rate): string {
  const width = (value: number): string => `${(value * 100).toFixed(1)}%`;
  return `<span class="bar"><span class="interval" style="left:${width(rate.low)};width:${width(rate.high - rate.low)}"></span><span class="point" style="left:${width(rate.rate)}"></span></span>`;
}

/** JSON inside a script element: `<` escaped, so no text can close the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const STYLE = `
:root{font:14px/1.4 system-ui,sans-serif;color:#0f172a;background:#f8fafc}
body{margin:0}main{padding:16px 24px;max-width:1200px;margin:auto}
h1{font-size:20px;margin:0 0 8px}h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e2e8f0}
.panel{background:#fff;border:1px solid #e2e8f0;border-radius:6px;padding:12px;margin:12px 0}
.badge{font-size:12px;padding:2px 8px;border-radius:10px;background:#e2e8f0}
.badge.good{background:#dcfce7}.badge.bad{background:#fee2e2}.bad{color:#b91c1c}.good{color:#15803d}
.dim{color:#64748b}.judge{color:#475569;font-size:13px}.overall td{font-weight:600}
.case{border-bottom:1px solid #e2e8f0;padding:6px 0}.case summary{cursor:pointer}.case .body{padding:4px 24px}
.bar{position:relative;display:inline-block;width:160px;height:10px;background:#f1f5f9;border-radius:5px}
.bar .interval{position:absolute;top:0;height:10px;background:#bfdbfe;border-radius:5px}
.bar .point{position:absolute;top:-2px;width:2px;height:14px;background:#1d4ed8}
code{font:12px ui-monospace,monospace;background:#f1f5f9;padding:1px 4px;border-radius:3px}
`;
