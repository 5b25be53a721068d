/**
 * DBOS runs in `prosec view`, with what the database holds: the run list's rows, and a run's own page
 * (status, worker, version, outputs or error, what a waiting run waits for, the checkpointed steps
 * with their values and cost). The
 * full trace (each request sent and answered, retries, times of each request) is written only for file
 * runs, in their folder; DBOS keeps each step's outcome, not its requests.
 */
import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Usage } from "../../runtime/index.js";
import { withClient } from "../worker/client.js";
import { howToAnswer, waitingQuestions } from "../worker/control.js";
import { DatabaseUnreachable, NoRunsDatabase } from "../worker/database.js";
import { dbosRunSteps, describeDbosRun, listDbosRuns, type DbosRun, type DbosStep } from "../worker/dbos-runs.js";
import { estimateCost } from "../run/cost.js";
import type { RunSummary } from "./run-data.js";

/** The DBOS runs as the run list shows them, newest first; `problem` says why there are none when the database cannot be read. */
export async function dbosRunSummaries(url: string): Promise<{ runs: RunSummary[]; problem?: string }> {
  try {
    return { runs: (await withClient(url, listDbosRuns)).map(summaryOf) };
  } catch (error) {
    if (error instanceof DatabaseUnreachable || error instanceof NoRunsDatabase)
      return { runs: [], problem: error.message };
    throw error;
  }
}

export interface DbosRunDetail {
  readonly run: DbosRun;
  readonly outputs?: unknown;
  readonly error?: string;
  /** What a waiting run waits for (an input, a tool call to approve), with the command that answers it. */
  readonly waitingFor?: readonly string[];
  readonly steps: readonly DbosStepView[];
}

export interface DbosStepView {
  readonly key: string;
  readonly kind: string;
  /** The program line the step's key names (0 when it names none). */
  readonly line: number;
  /** The run's workflow or the branch's it was checkpointed in. */
  readonly workflow: string;
  readonly value: string;
  readonly reason?: string;
  readonly tokens: number;
  readonly cost?: number;
}

/** One DBOS run, or undefined when the database has none of that id (or cannot be read). */
export async function readDbosRun(url: string, runId: string): Promise<DbosRunDetail | undefined> {
  try {
    return await withClient(url, (client) => detailOf(client, runId));
  } catch (error) {
    if (error instanceof DatabaseUnreachable || error instanceof NoRunsDatabase) return undefined;
    throw error;
  }
}

async function detailOf(client: DBOSClient, runId: string): Promise<DbosRunDetail | undefined> {
  const run = await describeDbosRun(client, runId);
  if (run === undefined) return undefined;
  const steps = (await dbosRunSteps(client, runId)).map(stepView);
  if (run.dbosStatus === "SUCCESS") return { run, outputs: await client.retrieveWorkflow(runId).getResult(), steps };
  if (run.dbosStatus === "ERROR") {
    try {
      await client.retrieveWorkflow(runId).getResult();
    } catch (error) {
      return { run, error: error instanceof Error ? error.message : String(error), steps };
    }
  }
  if (run.status === "waiting") {
    const questions = await waitingQuestions(client, runId);
    const waitingFor = questions.map((question) => howToAnswer(runId, question, questions));
    return { run, waitingFor, steps };
  }
  return { run, steps };
}

function summaryOf(run: DbosRun): RunSummary {
  const finished = run.updatedAt !== undefined && !["queued", "running", "waiting"].includes(run.status);
  return {
    runId: run.runId,
    program: run.program ?? run.runId,
    status: run.status,
    store: "dbos",
    startedAt: run.startedAt,
    ...(finished ? { durationMs: Math.max(0, Date.parse(run.updatedAt!) - Date.parse(run.startedAt)) } : {}),
    steps: run.steps,
    tokens: run.usage.reduce((sum, usage) => sum + totalTokens(usage), 0),
    ...(run.cost === undefined ? {} : { cost: run.cost }),
  };
}

function stepView(step: DbosStep): DbosStepView {
  const cost = estimateCost(step.usage);
  return {
    key: step.key,
    kind: step.kind,
    line: Number(/@(\d+):\d+#\d+$/.exec(step.key)?.[1] ?? 0),
    workflow: step.workflowId,
    value: typeof step.value === "string" ? step.value : JSON.stringify(step.value ?? null),
    ...(step.reason === undefined ? {} : { reason: step.reason }),
    tokens: step.usage.reduce((sum, usage) => sum + totalTokens(usage), 0),
    ...(cost === undefined ? {} : { cost }),
  };
}

function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** A DBOS run's page: plain HTML, every text from the database escaped; no script. */
export function renderDbosRunPage(detail: DbosRunDetail): string {
  const { run } = detail;
  const facts: Array<[string, string]> = [
    ["Status", `${run.status} (DBOS ${run.dbosStatus})`],
    ["Program", run.source ?? run.program ?? "?"],
    ["Version", run.version ?? "?"],
    ["Queue", run.queue ?? "-"],
    ["Worker", run.worker ?? "-"],
    ["Submitted", run.startedAt],
    ["Updated", run.updatedAt ?? "-"],
    ["Steps", String(run.steps)],
    ["Cost", run.cost === undefined ? "-" : dollars(run.cost)],
  ];
  const rows = detail.steps.map(
    (step) =>
      `<tr><td>${escape(step.kind)}</td><td>${step.line || ""}</td><td><code>${escape(step.key)}</code></td><td><pre class="text">${escape(clip(step.value))}</pre>${step.reason === undefined ? "" : `<p>${escape(clip(step.reason))}</p>`}</td><td>${step.tokens}</td><td>${step.cost === undefined ? "" : dollars(step.cost)}</td></tr>`,
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
<h1>${escape(run.program ?? run.runId)} <span class="badge status-${escape(run.status)}" id="status">${escape(run.status)}</span> <span class="badge">DBOS</span></h1>
<dl id="summary">${facts.map(([name, value]) => `<dt>${name}</dt><dd>${escape(value)}</dd>`).join("")}</dl>
${detail.error === undefined ? "" : `<p class="error" id="run-error">${escape(detail.error)}</p>`}
${(detail.waitingFor ?? []).map((line) => `<p class="waiting">waiting ${escape(line)}</p>`).join("\n")}
${detail.outputs === undefined ? "" : `<section class="panel"><h2>Outputs</h2><pre class="text" id="outputs">${escape(JSON.stringify(detail.outputs, null, 2))}</pre></section>`}
<section class="panel"><h2>Checkpointed steps</h2>
${rows.length === 0 ? "<p>No step checkpointed yet.</p>" : `<table id="steps"><thead><tr><th>Kind</th><th>Line</th><th>Key</th><th>Value</th><th>Tokens</th><th>Cost</th></tr></thead><tbody>${rows.join("")}</tbody></table>`}
<p class="note">A DBOS run keeps each step's outcome in the database. The requests sent and answered, retries and times are traced only for runs in .prose/runs.</p>
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
