/**
 * Reading a file of a run folder. A run folder may come from someone else (an archive, a shared
 * folder), and a file in it may be a FIFO (a plain read blocks forever waiting for a writer), a
 * device (`/dev/zero` never ends) or absurdly large: each would hang or crash `prosec runs`, the
 * view's list, `--resume`. The file is opened `O_NOFOLLOW | O_NONBLOCK` (a link is refused, a FIFO
 * cannot block the open), its descriptor is `fstat`ed (a regular file, at most RUN_FILE_LIMIT bytes),
 * and only then read, through that descriptor. An eval folder's files are opened the same way.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { RunStateError } from "../errors.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** The largest run file read: far beyond any journal a run writes, far below what would exhaust memory. */
export const RUN_FILE_LIMIT = 256 * 1024 * 1024;

/** A file where prosec expects one it wrote: a link, a FIFO, a socket, a device, a folder, or too large. */
export class UnexpectedFile extends Error {
  /** `message` says what the file is ("… is a FIFO (named pipe)", "… is 300000000 bytes"). */
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/**
 * A descriptor of `path`, opened with `flags` plus `O_NOFOLLOW | O_NONBLOCK` and checked through
 * it: a regular file of at most `limit` bytes, else an UnexpectedFile saying what it is. A missing
 * file throws as `openSync` does (ENOENT).
 */
export function openWrittenFile(path: string, flags: number, limit: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw notRegular(path, "a symbolic link");
    // A socket, or a FIFO opened for writing with no reader.
    if (code === "ENXIO") throw notRegular(path, "a FIFO or a socket");
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw notRegular(
        path,
        stats.isFIFO()
          ? "a FIFO (named pipe)"
          : stats.isDirectory()
            ? "a folder"
            : stats.isCharacterDevice() || stats.isBlockDevice()
              ? "a device"
              : "not a regular file",
      );
    if (stats.size > limit) throw new UnexpectedFile(`${path} is ${stats.size} bytes, more than the ${limit}`, true);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The text of the run folder's file at `path`. A missing file throws as `readFileSync` does (code
 * ENOENT); a link, a FIFO, a socket, a device or a file over RUN_FILE_LIMIT bytes is a RunStateError.
 */
export function readRunFile(path: string): string {
  let fd: number;
  try {
    fd = openWrittenFile(path, O_RDONLY, RUN_FILE_LIMIT);
  } catch (error) {
    if (!(error instanceof UnexpectedFile)) throw error;
    const why = error.tooLarge
      ? " a run file may hold: it is not a file prosec wrote"
      : ", not a regular file: prosec reads only the files it wrote into a run folder";
    throw new RunStateError(`${error.message}${why}. Remove it, or start a new run.`);
  }
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** The JSON in the run folder's file at `path`; undefined when it cannot be read or is not JSON. */
export function readRunJson(path: string): unknown {
  try {
    return JSON.parse(readRunFile(path)) as unknown;
  } catch {
    return undefined;
  }
}

function notRegular(path: string, what: string): UnexpectedFile {
  return new UnexpectedFile(`${path} is ${what}`);
}
