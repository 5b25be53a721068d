/** The README's table of diagnostic codes, generated from `codes.ts` (`npm run readme` writes it). */
import { diagnosticCodes } from "./codes.js";

const start = "<!-- code table: generated from src/diagnostics/codes.ts by `npm run readme`; do not edit -->";
const end = "<!-- end of code table -->";

/** One row per code, in the table's order. */
export function codeTableMarkdown(): string {
  const rows = Object.entries(diagnosticCodes).map(
    ([code, info]) => `| ${code} | ${info.severity} | ${info.meaning} |`,
  );
  return ["| code | severity | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The README with the table between its markers replaced by the current one. */
export function withCodeTable(readme: string): string {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from === -1 || to < from) throw new Error(`README.md has no code table markers (${start} ... ${end})`);
  return `${readme.slice(0, from)}${start}\n${codeTableMarkdown()}\n${readme.slice(to)}`;
}
