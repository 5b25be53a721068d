/**
 * Text that came from outside (a .prose file, a model) made safe to show. Labels in the graph
 * formats need every control character gone; a terminal must also never receive an escape
 * sequence from a model, which could set the window title, write the clipboard (OSC 52) or clear
 * the screen.
 */

/** C0 and C1 control characters but tab, line feed and carriage return, and the two noncharacters. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * Escape sequences, 7-bit and 8-bit: CSI (`ESC [` or U+009B, parameters, final byte), string
 * sequences (OSC, DCS, SOS, PM, APC) up to their terminator or the end of the text, then any other
 * `ESC` sequence.
 */
const ESCAPE_SEQUENCE =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;

/**
 * Bidirectional embeddings, overrides, isolates and marks: in a terminal that lays out right-to-left
 * text they make what follows read in another order (`exe.txt` shown as `txt.exe`).
 */
const BIDI_CONTROL = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Control characters become spaces; a lone surrogate becomes U+FFFD. */
export function printable(text: string): string {
  return text.replace(CONTROL, " ").replace(LONE_SURROGATE, "\ufffd");
}

/**
 * Text for a terminal: escape sequences, bidirectional controls and control characters removed but
 * line feeds and tabs (a carriage return could overwrite what was printed). A model's answer gets it
 * only on a terminal (piped output keeps its bytes exact); a report, always.
 */
export function terminalText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, "").replace(BIDI_CONTROL, "").replace(/\r/g, "");
}

/** `text` as `out` should receive it: unchanged unless `out` is a terminal. */
export function forStream(out: NodeJS.WritableStream, text: string): string {
  return (out as NodeJS.WriteStream).isTTY === true ? terminalText(text) : text;
}
