/**
 * Reading a `.prose` file. Only a regular file is opened (a fifo would block forever, a device never
 * end), and a link only to a `.prose` file: a repository can hold a link `lib.prose` to `.env` or
 * `/proc/self/environ`, whose lines a diagnostic's code frame would print into a CI log. Its bytes
 * must be UTF-8 text. Bytes that are not are a diagnostic with the position where
 * they start, and a binary file (one holding a NUL byte) is never shown: its text is empty.
 */
import { isUtf8 } from "node:buffer";
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { parseMessages } from "../diagnostics/messages.js";
import { LineMap } from "../phases/1-parse/index.js";
import { displayPath } from "./files.js";
import { UsageError } from "../errors.js";

export interface ProgramText {
  /** The program's text; empty for a binary file. */
  readonly text: string;
  /** Why the text cannot be compiled as it is (binary, not UTF-8). */
  readonly problem?: Diagnostic;
}

export function readProgram(file: string): ProgramText {
  let bytes: Buffer;
  const shown = displayPath(file);
  try {
    const stats = statSync(file);
    if (stats.isDirectory()) throw new UsageError(`${shown}: is a folder, not a .prose file`);
    if (!stats.isFile()) throw new UsageError(`${shown}: not a regular file (a fifo, socket or device is never read)`);
    if (isLinkToOtherFile(file))
      throw new UsageError(`${shown}: a link to a file that is not a .prose file (such a link is never read)`);
    bytes = readFileSync(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `${shown}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a folder, not a .prose file" : "cannot be read"}`,
    );
  }
  const nul = bytes.indexOf(0);
  if (nul !== -1) return { text: "", problem: parseMessages.binaryFile(rangeAt(bytes, nul)) };
  if (isUtf8(bytes)) return { text: bytes.toString("utf8") };
  return { text: bytes.toString("utf8"), problem: parseMessages.invalidUtf8(rangeAt(bytes, firstInvalidByte(bytes))) };
}

/** Whether `file` is a link that leads to a file not named `*.prose`. */
export function isLinkToOtherFile(file: string): boolean {
  return lstatSync(file).isSymbolicLink() && !realpathSync(file).endsWith(".prose");
}

/** The line and column of a byte, counted as the rest of the compiler counts them (in the decoded text). */
function rangeAt(bytes: Buffer, byte: number) {
  const before = bytes.subarray(0, byte).toString("utf8");
  const lines = new LineMap(before);
  return lines.range(before.length, before.length);
}

/** The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidByte(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index]!;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (length === 0 || index + length > bytes.length) return index;
    for (let next = 1; next < length; next++) if ((bytes[index + next]! & 0xc0) !== 0x80) return index;
    const second = bytes[index + 1] ?? 0;
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF.
    if (
      (lead === 0xe0 && second < 0xa0) ||
      (lead === 0xed && second > 0x9f) ||
      (lead === 0xf0 && second < 0x90) ||
      (lead === 0xf4 && second > 0x8f)
    )
      return index;
    index += length;
  }
  return -1;
}
