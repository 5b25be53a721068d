/** docs/diagnostics.md's table of diagnostic codes, generated from `codes.ts` (`npm run codes` writes it). */
import { diagnosticCodes } from "./codes.js";

const start = "<!-- code table: generated from src/diagnostics/codes.ts by `npm run codes`; do not edit -->";
const end = "<!-- end of code table -->";

/** One row per code, in the table's order. */
export function codeTableMarkdown(): string {
  const rows = Object.entries(diagnosticCodes).map(
    ([code, info]) => `| ${code} | ${info.severity} | ${info.meaning} |`,
  );
  return ["| code | severity | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The page with the table between its markers replaced by the current one. */
export function withCodeTable(page: string): string {
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from === -1 || to < from) throw new Error(`the page has no code table markers (${start} ... ${end})`);
  return `${page.slice(0, from)}${start}\n${codeTableMarkdown()}\n${page.slice(to)}`;
}
