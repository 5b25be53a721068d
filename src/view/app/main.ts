/// <reference lib="dom" />
/**
 * `prosec view`'s page (bundled by esbuild into dist/view/app.js, inlined in every page): the runs, or
 * one run (run-page.ts). It reads the data the page was written with, and marks when it first drew
 * (`prosec-first-render`, after the frame that shows the steps: what bench/view.bench.mjs measures).
 */
import type { RunSummary } from "../run-data.js";
import type { RunView } from "../run-view.js";
import type { ReportChunks } from "../report-blocks.js";
import { el, formatDollars, formatDuration, formatNumber } from "./dom.js";
import { RunPage } from "./run-page.js";

interface PageData {
  readonly mode: "runs" | "run";
  readonly runs?: readonly RunSummary[];
  readonly run?: RunView;
  /** The server's API root (`/<token>/api/`) when served; absent in a saved report. */
  readonly api?: string;
  /** A saved report's step details (data blocks in the page). */
  readonly details?: ReportChunks;
}

const data = JSON.parse(document.getElementById("prosec-data")!.textContent!) as PageData;
const root = document.getElementById("app")!;

function renderRuns(runs: readonly RunSummary[]): void {
  root.replaceChildren(
    el("h1", {}, "Runs"),
    runs.length === 0
      ? el("p", {}, "No runs yet.")
      : el(
          "table",
          { id: "runs" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ...["Program", "Status", "Started", "Duration", "Steps", "Tokens", "Cost"].map((h) => el("th", {}, h)),
            ),
          ),
          el(
            "tbody",
            {},
            ...runs.map((run) =>
              el(
                "tr",
                { "data-run": run.runId, class: `status-${run.status}` },
                el(
                  "td",
                  {},
                  el("a", { href: `run/${encodeURIComponent(run.runId)}` }, run.program),
                  // A run that keeps no trace: its page shows what its store holds (stored-run-page.ts).
                  ...(run.mark === undefined ? [] : [" ", el("span", { class: "badge store" }, run.mark)]),
                ),
                el("td", { class: "status" }, run.status),
                el("td", {}, run.startedAt ?? ""),
                el("td", {}, run.durationMs === undefined ? "" : formatDuration(run.durationMs)),
                el("td", {}, formatNumber(run.steps)),
                el("td", {}, formatNumber(run.tokens)),
                el("td", {}, run.cost === undefined ? "" : formatDollars(run.cost)),
              ),
            ),
          ),
        ),
  );
}

if (data.mode === "runs") renderRuns(data.runs ?? []);
else if (data.run !== undefined) new RunPage(data.run, root, data.api, data.details).start();
// A task after the next frame: the first render has been painted.
requestAnimationFrame(() => setTimeout(() => performance.mark("prosec-first-render"), 0));
