/**
 * JSON for prosec's `--json` output. `JSON.stringify` escapes only characters below U+0020, so a
 * model's or a run's text keeps C1 controls (U+0080–U+009F: 8-bit escape sequences such as CSI
 * U+009B and OSC U+009D), DEL, bidirectional controls and line separators raw, and `jq -r` hands
 * them to the terminal. Each is written as `\uXXXX` instead: the same JSON value, plain ASCII for
 * the terminal. They can only occur inside strings, where the escape means the character itself.
 */
const UNSAFE = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `JSON.stringify(value, null, indent)` with the characters above escaped. */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
