/**
 * Paths of the working directory as the sandbox judges them (sandbox.ts): in any case, unlinked, and
 * the protected places that are files.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync } from "node:fs";

/** Every existing path under `cwd` that is `relative` in some case (absolute). */
export function anyCase(cwd: string, relative: string): string[] {
  let found = [cwd];
  for (const part of relative.split("/")) {
    const lower = part.toLowerCase();
    found = found.flatMap((folder) => {
      let names: string[];
      try {
        names = readdirSync(folder);
      } catch {
        return [];
      }
      return names.filter((name) => name.toLowerCase() === lower).map((name) => `${folder}/${name}`);
    });
  }
  return found;
}

/**
 * `device:inode` of the folder or file at `path` when no component of it is a link (the descriptor,
 * opened `O_NOFOLLOW`, names exactly `path`); undefined when one is, or it is missing.
 */
export function unlinkedIdentity(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isDirectory() && !stat.isFile()) return undefined;
    return readlinkSync(`/proc/self/fd/${fd}`) === path ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The places at the top of `cwd` that are files (an MCP server's script, mcp/server-places.ts): the
 * walk after a command looks at folders and protected names only.
 */
export function placeFiles(cwd: string, places: readonly string[]): string[] {
  return places
    .filter((place) => !place.includes("/") && place !== ".")
    .flatMap((place) => anyCase(cwd, place))
    .filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isFile() === true);
}
