/**
 * The page of a run that keeps no trace (a DBOS run), with what its store holds: status, worker,
 * version, outputs or error, what a waiting run waits for, the recorded steps with their values and
 * cost. The full trace (each request sent and answered, retries, times of each request) is written
 * only for runs in .prose/runs, in their folder; DBOS keeps each step's outcome, not its requests.
 */
import type { FoundRun, StoredStep } from "../runs/run-store.js";

/** The page: plain HTML, every text from the store escaped; no script. */
export function renderStoredRunPage(run: FoundRun, steps: readonly StoredStep[]): string {
  const store = run.store.toUpperCase();
  const facts: Array<[string, string]> = [
    ["Status", run.backendStatus === undefined ? run.status : `${run.status} (${store} ${run.backendStatus})`],
    ["Program", run.source ?? run.program ?? "?"],
    ["Version", run.version ?? "?"],
    ["Queue", run.queue ?? "-"],
    ["Worker", run.worker ?? "-"],
    ["Submitted", run.startedAt ?? "-"],
    ["Updated", run.updatedAt ?? "-"],
    ["Steps", String(run.steps)],
    ["Cost", run.cost === undefined ? "-" : dollars(run.cost)],
  ];
  const rows = steps.map(
    (step) =>
      `<tr><td>${escape(step.kind)}</td><td>${step.line ?? ""}</td><td><code>${escape(step.key)}</code></td><td><pre class="text">${escape(clip(step.value ?? ""))}</pre>${step.reason === undefined ? "" : `<p>${escape(clip(step.reason))}</p>`}</td><td>${step.tokens}</td><td>${step.cost === null ? "" : dollars(step.cost)}</td></tr>`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escape(`${run.program ?? "run"} · ${run.runId}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p><a href="../">Runs</a></p>
<h1>${escape(run.program ?? run.runId)} <span class="badge status-${escape(run.status)}" id="status">${escape(run.status)}</span> <span class="badge">${escape(store)}</span></h1>
<dl id="summary">${facts.map(([name, value]) => `<dt>${name}</dt><dd>${escape(value)}</dd>`).join("")}</dl>
${run.error === undefined ? "" : `<p class="error" id="run-error">${escape(run.error)}</p>`}
${run.waitingFor.map((line) => `<p class="waiting">waiting ${escape(line)}</p>`).join("\n")}
${run.outputs === undefined ? "" : `<section class="panel"><h2>Outputs</h2><pre class="text" id="outputs">${escape(JSON.stringify(run.outputs, null, 2))}</pre></section>`}
<section class="panel"><h2>Checkpointed steps</h2>
${rows.length === 0 ? "<p>No step checkpointed yet.</p>" : `<table id="steps"><thead><tr><th>Kind</th><th>Line</th><th>Key</th><th>Value</th><th>Tokens</th><th>Cost</th></tr></thead><tbody>${rows.join("")}</tbody></table>`}
<p class="note">This store keeps each step's outcome. The requests sent and answered, retries and times are traced only for runs in .prose/runs.</p>
</section>
</main>
</body>
</html>
`;
}

const CLIP = 2000;

function clip(text: string): string {
  return text.length > CLIP ? `${text.slice(0, CLIP)}…` : text;
}

function dollars(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.codePointAt(0)};`);
}

const STYLE = `
:root{font:14px/1.4 system-ui,sans-serif;color:#0f172a;background:#f8fafc}
body{margin:0}main{padding:16px 24px;max-width:1400px;margin:auto}
h1{font-size:20px;margin:0 0 8px}h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e2e8f0;vertical-align:top}
.badge{font-size:12px;padding:2px 8px;border-radius:10px;background:#e2e8f0;vertical-align:middle}
.status-complete{background:#dcfce7}.status-failed{background:#fee2e2}.status-running{background:#dbeafe}.status-waiting{background:#fef9c3}
.waiting{color:#854d0e}
#summary{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}#summary dt{color:#64748b}#summary dd{margin:0}
.panel{background:#fff;border:1px solid #e2e8f0;border-radius:6px;padding:12px;margin:12px 0}
pre.text{white-space:pre-wrap;word-break:break-word;background:#f1f5f9;padding:6px;margin:2px 0;font-size:12px;max-height:240px;overflow:auto}
.error{color:#b91c1c}.note{color:#64748b;font-size:12px}
`;
