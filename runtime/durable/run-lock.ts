/**
 * `.lock`: one process per run folder, since a second process resuming a run that still runs would
 * record the same steps twice. The file holds the holder's pid and, on Linux, its command line
 * (`/proc/self/cmdline`), so a lock left behind by a crash can be told from a live holder even after
 * the pid was reused. A lock whose pid is dead is taken over; a live pid is never overruled: the
 * message says what that process is, so the user can decide.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RunStateError } from "../errors.js";

const LOCK_FILE = ".lock";

export function lockRun(dir: string, runId: string): void {
  const path = join(dir, LOCK_FILE);
  const holder = readHolder(path);
  if (holder !== undefined) throw heldBy(path, runId, holder.pid, holder.recorded);
  writeFileSync(path, `${process.pid}\n${printable(commandLine("self") ?? process.argv.join(" "))}\n`);
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
  if (!existsSync(path)) return undefined;
  const [pidText = "", recorded] = readFileSync(path, "utf8").split("\n");
  const pid = Number(pidText.trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? { pid, recorded } : undefined;
}

/** The pid of the live process (another one) that holds a run's lock, which `lockRun` would not overrule. */
export function lockHolder(dir: string): number | undefined {
  return readHolder(join(dir, LOCK_FILE))?.pid;
}

export function unlockRun(dir: string): void {
  rmSync(join(dir, LOCK_FILE), { force: true });
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
function isAlive(pid: number): boolean {
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
