/**
 * `.lock`: one process per run folder, since a second process resuming a run that still runs would
 * record the same steps twice. The file holds the holder's pid and, on Linux, its command line
 * (`/proc/self/cmdline`), so a lock left behind by a crash can be told from a live holder even after
 * the pid was reused. A lock whose pid is dead is taken over; a live pid is never overruled: the
 * message says what that process is, so the user can decide.
 *
 * Taking the lock is one exclusive step, so two processes that reach it at the same instant never
 * both hold it: the lock is written whole to a file of this process's own, then hard-linked to
 * `.lock`, which fails when `.lock` exists (so no reader ever sees a lock half written). A stale
 * lock is renamed away to a name of this process's own before the link: of two processes taking
 * over the same stale lock, one rename finds it and the other finds nothing and tries again.
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRunFile } from "./run-file.js";
import { RunStateError } from "../errors.js";

const LOCK_FILE = ".lock";

/** Takes the run's lock, or throws a RunStateError naming the live process that holds it. */
export function lockRun(dir: string, runId: string): void {
  const path = join(dir, LOCK_FILE);
  const mine = `${path}.${process.pid}.new`;
  writeFileSync(mine, `${process.pid}\n${printable(commandLine("self") ?? process.argv.join(" "))}\n`);
  try {
    // A stale lock taken over by someone else between two tries is read again: a few tries settle it.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (tryLink(mine, path)) return;
      const content = readContent(path);
      if (content === undefined) continue;
      const holder = holderOf(content);
      if (holder !== undefined) throw heldBy(path, runId, holder.pid, holder.recorded);
      takeOverStale(path, content);
    }
    throw new RunStateError(
      `Run ${runId} is being locked by other processes at this moment (${path}). Wait for them to stop, then resume.`,
    );
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Links `from` to `to` unless `to` exists: the exclusive create of a file with its whole content. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
  }
  // A file system without hard links: an exclusive create, then the content.
  try {
    writeFileSync(to, readFileSync(from), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Removes the stale lock whose content was `stale`: renamed to a name of this process's own first,
 * so only one process removes it; when what was renamed is not that lock (another process took the
 * stale one over meanwhile and this rename took its fresh lock), it is put back.
 */
function takeOverStale(path: string, stale: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (readContent(aside) !== stale) tryLink(aside, path);
  rmSync(aside, { force: true });
}

function readContent(path: string): string | undefined {
  try {
    return readRunFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The pid of the process running the run in `dir`, when it is alive and still the process that took
 * the lock (its command line is the recorded one): `prosec cancel` signals it, and never a reused pid.
 */
export function liveHolder(dir: string): number | undefined {
  const holder = readHolder(join(dir, LOCK_FILE));
  if (holder === undefined) return undefined;
  const running = commandLine(String(holder.pid));
  return running === undefined || printable(running) === holder.recorded ? holder.pid : undefined;
}

/** The lock's live pid (another process's) and the command line it recorded. */
function readHolder(path: string): { pid: number; recorded: string | undefined } | undefined {
  const content = readContent(path);
  return content === undefined ? undefined : holderOf(content);
}

/** The live holder (another process) a lock's content names; undefined for a stale lock. */
function holderOf(content: string): { pid: number; recorded: string | undefined } | undefined {
  const [pidText = "", recorded] = content.split("\n");
  const pid = Number(pidText.trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? { pid, recorded } : undefined;
}

/** The pid of the live process (another one) that holds a run's lock, which `lockRun` would not overrule. */
export function lockHolder(dir: string): number | undefined {
  return readHolder(join(dir, LOCK_FILE))?.pid;
}

/** Removes the run's lock when this process holds it (never another's). */
export function unlockRun(dir: string): void {
  const path = join(dir, LOCK_FILE);
  const content = readContent(path);
  if (content !== undefined && Number(content.split("\n")[0]) === process.pid) rmSync(path, { force: true });
}

function heldBy(path: string, runId: string, pid: number, recorded: string | undefined): RunStateError {
  const running = commandLine(String(pid));
  if (running === undefined)
    return new RunStateError(
      `Run ${runId} is in use by process ${pid} (${path}). Wait for it to stop, or stop it, then resume.`,
    );
  const shown = printable(running);
  if (shown === recorded)
    return new RunStateError(
      `Run ${runId} is in use by process ${pid} (\`${shown}\`). Wait for it to stop, or stop it, then resume.`,
    );
  const why =
    recorded === undefined || recorded === ""
      ? ""
      : ` The run was started by \`${recorded}\`: that process has ended and its pid was reused.`;
  return new RunStateError(
    `${path} names process ${pid}, which is running \`${shown}\`, not prosec running run ${runId}.${why} If no process is running this run, delete ${path} and resume.`,
  );
}

/** A process's command line, from /proc (Linux); undefined where there is none. */
function commandLine(pid: string): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw.replace(/\0+$/, "").split("\0").join(" ");
  } catch {
    return undefined;
  }
}

/** One line, at most 200 characters: it goes into a file of lines and into a message. */
function printable(command: string): string {
  const line = command.replace(/[\u0000-\u001f\u007f]/g, " ");
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Whether `pid` is a running process: a zombie (ended, not yet reaped by its parent) is not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // The state follows the parenthesised name, which may itself hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}
