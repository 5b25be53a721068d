/**
 * Writing run state: every file the runtime writes goes through `replaceFile`, so a reader (or a
 * resumed run after a crash) sees the old content or the whole new content, never half a file.
 */
import {
  mkdir as mkdirCallback,
  rename as renameCallback,
  renameSync,
  rm as rmCallback,
  rmSync,
  writeFile as writeFileCallback,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { makeDirectory } from "../make-directory.js";

// The callback API: fs/promises' writeFile opens a FileHandle per file, which profiled at about 1 ms
// of main-thread time each (makeTransferable, openFileHandle), more than the write itself.
const mkdir = promisify(mkdirCallback);
const rename = promisify(renameCallback);
const rm = promisify(rmCallback);
const writeFile = promisify(writeFileCallback);

/** Replaces `path` atomically (temporary file in the same folder, then rename); the folder must exist. */
export async function replaceFile(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temporary, content, "utf8");
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** `replaceFile`, synchronously: the folder must exist. */
export function replaceFileNow(path: string, content: string): void {
  replaceThrough(`${path}.${process.pid}.tmp`, path, content);
}

/**
 * `writeAtomically`, synchronously: for what must be on disk before the next line runs (a run's
 * run.json before its first step) and for the compiler's outputs. The temporary file is
 * `.<name>.<pid>.tmp` beside the target (stale-outputs.ts recognises one a killed build left).
 */
export function writeFileAtomically(path: string, content: string): void {
  const directory = dirname(path);
  makeDirectory(directory);
  replaceThrough(join(directory, `.${basename(path)}.${process.pid}.tmp`), path, content);
}

/** Writes `content` to `temporary`, then renames it to `path`; on failure `temporary` is removed. */
function replaceThrough(temporary: string, path: string, content: string): void {
  try {
    writeFileSync(temporary, content, "utf8");
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

export async function writeAtomically(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await replaceFile(path, content);
}

/** Creates a folder and its parents (no error when it exists). */
export function makeFolder(path: string): Promise<unknown> {
  return mkdir(path, { recursive: true });
}

/** A name as a file or folder name: hyphens stay; anything that could leave the folder is replaced. */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_");
}
