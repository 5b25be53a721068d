/**
 * The page `prosec view` serves and `--out` writes: one HTML file with its script (dist/view/app.js,
 * bundled at build time) and its data inline. Its Content-Security-Policy lets it load nothing from
 * anywhere; a served page may only ask its own server for newer data and a step's details. A saved
 * report carries the details itself, compressed, in data blocks the page reads when a step is selected.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildRoot } from "../package-root.js";
import type { RunSummary } from "./run-data.js";
import type { RunView } from "./run-view.js";
import type { ReportDetails } from "./report.js";
import { DETAILS_BLOCK, TEXTS_BLOCK, type ReportChunks } from "./report-blocks.js";

export interface PageContent {
  readonly title: string;
  readonly mode: "runs" | "run";
  readonly runs?: readonly RunSummary[];
  readonly run?: RunView;
  /** The served page's API root; absent in a saved report. */
  readonly api?: string;
  /** A saved report's step details. */
  readonly details?: ReportDetails;
}

let script: string | undefined;

function appScript(): string {
  script ??= readFileSync(join(buildRoot(), "view", "app.js"), "utf8");
  return script;
}

export function renderPage(content: PageContent): string {
  const { title, details, ...page } = content;
  const chunks: ReportChunks | undefined =
    details === undefined ? undefined : { chunkSize: details.chunkSize, chunks: details.chunks.length };
  const data = chunks === undefined ? page : { ...page, details: chunks };
  // Base64 in a data block (a script of a type the browser does not run): nothing in it can end the element.
  const blocks =
    details === undefined
      ? ""
      : [
          ...details.chunks.map((chunk, index) => dataBlock(`${DETAILS_BLOCK}${index}`, chunk)),
          dataBlock(TEXTS_BLOCK, details.texts),
        ].join("");
  const connect = content.api === undefined ? "'none'" : "'self'";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src ${connect}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="app"></main>
<script type="application/json" id="prosec-data">${jsonForScript(data)}</script>
${blocks}<script>${appScript().replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>
`;
}

function dataBlock(id: string, base64: string): string {
  return `<script type="application/gzip+base64" id="${id}">${base64}</script>\n`;
}

/** JSON inside a script element: `<` escaped, so no text can close the element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.codePointAt(0)};`);
}

const STYLE = `
:root{font:14px/1.4 system-ui,sans-serif;color:#0f172a;background:#f8fafc}
body{margin:0}main{padding:16px 24px;max-width:1400px;margin:auto}
h1{font-size:20px;margin:0 0 8px}h2{font-size:15px;margin:0 0 8px}h3{font-size:14px;margin:4px 0}h4{font-size:12px;margin:8px 0 2px;color:#475569}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e2e8f0}
.badge{font-size:12px;padding:2px 8px;border-radius:10px;background:#e2e8f0;vertical-align:middle}
.status-complete{background:#dcfce7}.status-failed{background:#fee2e2}.status-running{background:#dbeafe}.status-waiting{background:#fef9c3}
#summary{display:grid;grid-template-columns:max-content 1fr max-content 1fr max-content 1fr;gap:2px 12px;margin:8px 0}
#summary dt{color:#64748b}#summary dd{margin:0}
.columns{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.panel{background:#fff;border:1px solid #e2e8f0;border-radius:6px;padding:12px;margin:12px 0;min-width:0}
#source{margin:0;font:12px/18px ui-monospace,monospace;overflow:auto;max-height:520px;contain:layout paint}
.line{display:flex;gap:8px;white-space:pre}.line .number{color:#94a3b8;width:3em;text-align:right;flex:none}
.line .code{flex:1}.line .runs{color:#475569}
.loading{color:#64748b}
.run-done{background:#f0fdf4}.run-running{background:#dbeafe}.run-failed{background:#fecaca;font-weight:600}.run-waiting{background:#fef9c3}
#steps{height:260px;overflow:auto;contain:strict;border:1px solid #e2e8f0;font-size:12px;outline-offset:2px}
.step{display:flex;gap:8px;align-items:center;padding:0 6px;cursor:pointer;white-space:nowrap;overflow:hidden;box-sizing:border-box}
.step .kind{width:56px;color:#475569}.step .at{width:56px;color:#94a3b8}.step .label{flex:1;overflow:hidden;text-overflow:ellipsis}
.step[aria-selected=true]{background:#1d4ed8;color:#fff}.step[aria-selected=true] span{color:#fff}
.state-failed .kind{color:#b91c1c}.state-running .kind{color:#1d4ed8}
#detail{margin-top:8px;max-height:520px;overflow:auto}
.step-detail dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0}.step-detail dt{color:#64748b}.step-detail dd{margin:0}
pre.text{white-space:pre-wrap;word-break:break-word;background:#f1f5f9;padding:6px;margin:2px 0;font-size:12px;max-height:240px;overflow:auto}
.error{color:#b91c1c}.waiting{color:#854d0e}
.tool-call,.tool-result{border-left:3px solid #a855f7;padding-left:6px;margin:4px 0}
#timeline{max-height:420px;overflow:auto;contain:layout paint}
#timeline .lane{display:flex;align-items:center;gap:8px}
.lane-name{width:180px;font-size:11px;color:#475569;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:none}
.lane-bars{position:relative;flex:1;height:12px;background:#f1f5f9}
.bar{position:absolute;top:0;height:12px;background:#22c55e;border-radius:2px}
.bar.state-failed{background:#ef4444}.bar.state-running{background:#3b82f6}.bar.state-waiting{background:#eab308}.bar.state-cancelled{background:#9ca3af}
#graph{overflow:auto;max-height:700px}
#graph .node.run-done>:first-child{fill:#dcfce7}#graph .node.run-failed>:first-child{fill:#fecaca;stroke:#b91c1c}
#graph .node.run-running>:first-child{fill:#dbeafe}#graph .node.run-waiting>:first-child{fill:#fef9c3}
`;
