/**
 * The project's files a stdio MCP server of `.mcp.json` runs (`node tools/server.mjs`, `python
 * mcp/server.py`, `node_modules/@acme/mcp/dist/index.js`): prosec starts such a server as the user,
 * outside any sandbox, so an agent that rewrote its code would have its own code run with the user's
 * reach, by this run (a restart) or the next. They are protected from agents' writes as skill
 * folders are (protected-names.ts): the folder that holds the file, the whole package under
 * `node_modules/`, or the file itself when it lies in the working directory's top folder (which no
 * command can move). A word of the command line that names no path in the working directory
 * (`npx`, `-y`, a package name, `${VAR}`) protects nothing, nor does a folder (a filesystem
 * server's root is data); what a package pulls in from elsewhere in `node_modules/` is not covered
 * (docs/tools.md).
 */
import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { findMcpConfig, readMcpConfig } from "./config.js";

/**
 * What the stdio servers of the `.mcp.json` for `cwd` (`file`, else the nearest at or above it) run
 * from the working directory, relative to it, `/`-separated, lower case; none without a readable file.
 */
export function mcpServerPlaces(cwd: string, file?: string): string[] {
  const found = file ?? findMcpConfig(cwd);
  if (found === undefined) return [];
  let servers;
  try {
    servers = readMcpConfig(found).servers;
  } catch {
    // A file the run cannot use fails the session that needs it, saying why; there is nothing to protect.
    return [];
  }
  const realCwd = realpathSync.native(cwd);
  const places = new Set<string>();
  for (const spec of servers.values()) {
    if (spec.type !== "stdio") continue;
    for (const word of [spec.command, ...spec.args])
      for (const place of placesOf(word, cwd, realCwd)) places.add(place);
  }
  return [...places];
}

/** What a script's name ends with: a word naming no file yet is still one when it looks like this. */
const SCRIPT = /\.(m?[jt]s|c[jt]s|py|sh|rb)$/i;

/**
 * The places protecting what `word` names in the working directory: where it really is and as
 * written (a link on the way), or, for a script not there yet (`dist/server.js` before a build), as
 * written; none for a word that names no file of the project.
 */
function placesOf(word: string, cwd: string, realCwd: string): string[] {
  if (word === "" || word.startsWith("-") || word.includes("${")) return [];
  const written = resolve(realCwd, relative(cwd, resolve(cwd, word)));
  let real: string;
  try {
    real = realpathSync.native(written);
  } catch {
    // Not there (yet): a script in a folder is protected as written (its folder); one in the top
    // folder is not (a command could make it: docs/tools.md).
    if (!SCRIPT.test(word) || !relative(realCwd, written).includes(sep)) return [];
    const place = placeIn(written, realCwd);
    return place === undefined ? [] : [place];
  }
  // A folder given to a server is what it serves (a filesystem server's root), not code it runs.
  if (!lstatSync(real).isFile()) return [];
  return [...new Set([placeIn(real, realCwd), placeIn(written, realCwd)])].filter(
    (place): place is string => place !== undefined,
  );
}

/** The place of the file `path` (absolute): its package, its folder, or itself in the top folder. */
function placeIn(path: string, realCwd: string): string | undefined {
  const inside = relative(realCwd, path);
  if (inside === "" || inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return undefined;
  const parts = inside.split(sep);
  const modules = parts.lastIndexOf("node_modules");
  if (modules >= 0 && modules < parts.length - 1) {
    // The package: `node_modules/name` or `node_modules/@scope/name`.
    const end = modules + (parts[modules + 1]!.startsWith("@") ? 3 : 2);
    return parts.slice(0, Math.min(end, parts.length)).join("/").toLowerCase();
  }
  const folder = parts.length === 1 ? parts : parts.slice(0, -1);
  return folder.join("/").toLowerCase();
}
