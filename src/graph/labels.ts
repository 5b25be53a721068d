/**
 * Label text comes from the .prose file: each format escapes it (`to-mermaid.ts`, `to-dot.ts`,
 * `to-svg.ts`). Here, what every format needs first: one line, shortened, and without the
 * characters no format can hold (control characters and lone surrogates, which make XML
 * ill-formed).
 */

import { printable } from "../printable.js";

const LABEL_LENGTH = 60;
/** A prompt's first words: enough to tell sessions apart. */
const PROMPT_LENGTH = 40;

/** Text on one line, whitespace collapsed, cut to `length` characters with an ellipsis. */
export function excerpt(text: string, length = LABEL_LENGTH): string {
  const line = printable(text).replace(/\s+/g, " ").trim();
  const characters = [...line];
  return characters.length <= length ? line : `${characters.slice(0, length - 1).join("")}…`;
}

/** A prompt or a path in typographic quotes (ASCII ones would need escaping in every format). */
export function quoted(text: string): string {
  return `“${excerpt(text, PROMPT_LENGTH)}”`;
}
