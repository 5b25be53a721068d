/**
 * What a person deciding about a tool call is shown (permissions.ts, approvals.ts).
 */

/**
 * Characters that change how text around them looks on a terminal or in an editor: C0 and C1
 * controls (escape sequences, a carriage return that prints over a line, a line break that fakes one),
 * bidirectional overrides and isolates, zero-width characters, line and paragraph separators.
 */
const DECEPTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A tool call's detail as a person is shown it (a terminal, `waiting.json`, `onApproval`): every
 * character that could make it look like another action written as `\uXXXX`, so what the person
 * reads is what runs.
 */
export function shownToAPerson(detail: string): string {
  return detail.replace(DECEPTIVE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
