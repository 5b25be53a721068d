/**
 * What a test run may leave running, found and stopped when the run ends (temp-folder.ts's teardown),
 * whatever became of the test that started it (failed, timed out, or forgot). Every process a test
 * starts inherits the run's TMPDIR (or is given a folder inside it), so a process whose environment
 * names it is the run's: a PostgreSQL server whose data folder is under it is stopped with `.ci/postgres
 * stop`, any other process is sent SIGTERM, then SIGKILL when it has not exited within a few seconds.
 * Linux (/proc) only; elsewhere nothing is found.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const postgresScript = fileURLToPath(new URL("../../.ci/postgres", import.meta.url));

export interface Leftover {
  readonly pid: number;
  readonly command: string;
}

/**
 * The processes whose TMPDIR is `folder` or inside it, but this one and its own children (the test
 * workers, which vitest closes itself).
 */
export function processesOf(folder: string): Leftover[] {
  if (!existsSync("/proc")) return [];
  const found: Leftover[] = [];
  const marker = `TMPDIR=${folder}`;
  // Or a folder inside it: a test may give what it starts a temp folder of its own (Chromium's profile).
  const ours = (entry: string): boolean => entry === marker || entry.startsWith(`${marker}/`);
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environment = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (!environment.some(ours)) continue;
      const parent = Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
      if (parent === process.pid) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      found.push({ pid, command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** PostgreSQL data folders under `folder` with a running server (their postmaster.pid), at most 4 levels down. */
function postgresFolders(folder: string, depth = 4): string[] {
  if (depth === 0) return [];
  const found: string[] = [];
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (entry.isFile() && entry.name === "postmaster.pid") found.push(folder);
    else if (entry.isDirectory() && !entry.isSymbolicLink())
      found.push(...postgresFolders(join(folder, entry.name), depth - 1));
  }
  return found;
}

/** Whether the process is there and not a zombie (exited, waiting for its parent to reap it). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Stops every server and process of the run in `folder`; what was found still running. */
export async function stopLeftovers(folder: string, graceMs = 5_000): Promise<Leftover[]> {
  const left = processesOf(folder);
  for (const data of postgresFolders(folder)) {
    try {
      execFileSync("bash", [postgresScript, "stop", data], { stdio: "ignore", timeout: 60_000 });
    } catch {
      // the signals below stop it
    }
  }
  const running = processesOf(folder);
  for (const { pid } of running) {
    try {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGTERM");
    } catch {
      // gone meanwhile
    }
  }
  const deadline = Date.now() + graceMs;
  while (running.some(({ pid }) => alive(pid)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const stubborn = running.filter(({ pid }) => alive(pid));
  for (const { pid } of stubborn) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  // A killed process lingers until the kernel has torn it down, which a loaded machine takes its time
  // over: what returns here is stopped, not merely signalled.
  const killDeadline = Date.now() + graceMs;
  while (stubborn.some(({ pid }) => alive(pid)) && Date.now() < killDeadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return left;
}
