/**
 * The file descriptors a command would inherit from whoever started prosec. Node opens each
 * descriptor of its own close-on-exec, but one prosec was started with that is not (a shell's
 * `9</some/folder`, a pipe or socket an editor or a CI runner left open) passes to every process
 * prosec starts, and bwrap passes it on into the sandbox: a folder's descriptor there leads out of
 * it (`/proc/self/fd/9/..` is the folder's parent outside), a socket's talks to whatever holds its
 * other end. A command gets `/dev/null` in each of those places instead.
 *
 * Read from `/proc/self/fdinfo` (`flags` without O_CLOEXEC) when the command starts: an application
 * that runs a program may open such descriptors on purpose at any time, and only its commands lose
 * them, never the application.
 */
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import type { StdioOptions } from "node:child_process";

const O_CLOEXEC = 0o2000000;

/** Descriptors from `from` up that an exec would keep open (none where /proc cannot say). */
export function inheritedDescriptors(from = 3): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return [];
  }
  const inherited: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < from) continue;
    let flags: RegExpExecArray | null;
    try {
      flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${name}`, "utf8"));
    } catch {
      continue; // Closed since it was listed (the readdir's own descriptor among them).
    }
    if (flags !== null && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) inherited.push(fd);
  }
  return inherited.sort((a, b) => a - b);
}

/**
 * Spawns through `start` with `stdio` extended so that every inherited descriptor the command
 * would get is `/dev/null` in it (an entry `ignore` leaves a descriptor as it is; a number puts that
 * descriptor there, replacing what the command would have inherited).
 */
export function withoutInheritedDescriptors<T>(
  stdio: readonly Exclude<StdioOptions, string>[number][],
  start: (stdio: Exclude<StdioOptions, string>) => T,
): T {
  const inherited = inheritedDescriptors().filter((fd) => fd >= stdio.length || stdio[fd] === "ignore");
  if (inherited.length === 0) return start([...stdio]);
  const devNull = openSync("/dev/null", "r");
  try {
    const extended = [...stdio];
    for (let fd = stdio.length; fd <= inherited.at(-1)!; fd++) extended.push("ignore");
    for (const fd of inherited) extended[fd] = devNull;
    return start(extended);
  } finally {
    closeSync(devNull);
  }
}
