/**
 * `permissions:` enforced in code, before a tool runs. Defaults when a program says nothing:
 *
 * - read: anything inside the working directory;
 * - write: anything inside the working directory except `.git/` and `.prose/`;
 * - bash (`run_command`): `prompt`, i.e. allowed only when `RunOptions.onPermission` says yes;
 * - network (`fetch_url`): `deny`.
 *
 * An empty `read:` / `write:` list (`deny` in a program) refuses every path and the tools that need
 * it are not offered; an empty `execute:` list refuses every command. `ask` (a program's `prompt`)
 * puts each read, write or command the lists allow to `onPermission` as well.
 *
 * Paths always resolve against the working directory, and a path whose real location (symlinks
 * followed) is outside it is refused whatever the globs say. Globs (picomatch) must match both the
 * path as asked and its real location, so a symlink cannot carry a read to a place the globs exclude.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import picomatch from "picomatch";
import type { PermissionAsked, PermissionMode, PermissionRequest, Permissions, ToolPermissions } from "../types.js";
import { PermissionDenied } from "./tool.js";

const DEFAULT_READ = ["**"];
const DEFAULT_WRITE = ["**", "!.git/**", "!.prose/**"];

export type PermissionAsker = (request: PermissionRequest) => boolean | Promise<boolean>;

export class PermissionGuard implements ToolPermissions {
  readonly bash: PermissionMode;
  private readonly network: PermissionMode | readonly string[];
  // Resolved on the first path check: most sessions never touch a file, and compiling globs per
  // session would be most of the runtime's own cost.
  private paths: { realCwd: string; canRead: (path: string) => boolean; canWrite: (path: string) => boolean } | undefined;

  constructor(
    readonly cwd: string,
    private readonly permissions: Permissions | undefined,
    private readonly ask: PermissionAsker | undefined,
    private readonly agent?: string,
  ) {
    this.bash = permissions?.bash ?? "prompt";
    this.network = permissions?.network ?? "deny";
  }

  private get pathRules(): { realCwd: string; canRead: (path: string) => boolean; canWrite: (path: string) => boolean } {
    this.paths ??= {
      realCwd: realpathSync(this.cwd),
      canRead: matcher(this.permissions?.read ?? DEFAULT_READ),
      canWrite: matcher(this.permissions?.write ?? DEFAULT_WRITE),
    };
    return this.paths;
  }

  /** Whether `run_command` is offered to the model at all. */
  offersCommands(): boolean {
    if (this.bash === "deny" || this.permissions?.execute?.length === 0) return false;
    if (this.asks("execute")) return this.ask !== undefined;
    return this.bash === "allow" || (this.permissions?.execute?.length ?? 0) > 0 || this.ask !== undefined;
  }

  /** Whether `read_file`, `list_files` and `search_files` are offered. */
  offersReads(): boolean {
    return grantsSome(this.permissions?.read ?? DEFAULT_READ) && (!this.asks("read") || this.ask !== undefined);
  }

  /** Whether `write_file` and `edit_file` are offered. */
  offersWrites(): boolean {
    return grantsSome(this.permissions?.write ?? DEFAULT_WRITE) && (!this.asks("write") || this.ask !== undefined);
  }

  /** Whether `fetch_url` is offered. */
  offersNetwork(): boolean {
    if (this.network === "deny") return false;
    if (this.network === "prompt") return this.ask !== undefined;
    return this.network === "allow" || this.network.length > 0;
  }

  /** The absolute path to read, or PermissionDenied. */
  readablePath(path: string): string {
    return this.checkPath(path, this.pathRules.canRead, "read");
  }

  writablePath(path: string): string {
    return this.checkPath(path, this.pathRules.canWrite, "write");
  }

  /** `readablePath`, then, under `read: prompt`, `onPermission` for this path (`tool` names the asker). */
  async confirmRead(path: string, tool: string): Promise<string> {
    const absolute = this.readablePath(path);
    if (this.asks("read")) await this.confirm(tool, String(path));
    return absolute;
  }

  /** `writablePath`, then, under `write: prompt`, `onPermission` for this path. */
  async confirmWrite(path: string, tool: string): Promise<string> {
    const absolute = this.writablePath(path);
    if (this.asks("write")) await this.confirm(tool, String(path));
    return absolute;
  }

  async checkCommand(command: string): Promise<void> {
    if (this.bash === "deny") throw new PermissionDenied("Running commands is denied for this agent (bash: deny).");
    const execute = this.permissions?.execute;
    if (execute?.length === 0) throw new PermissionDenied("Running commands is denied for this agent (execute: deny).");
    if (execute !== undefined) {
      if (execute.some((pattern) => wildcard(pattern).test(command.trim()))) {
        if (!this.asks("execute")) return;
      } else if (this.bash === "allow") {
        throw new PermissionDenied(`The command is not in this agent's execute list: ${command}`);
      }
    } else if (this.bash === "allow" && !this.asks("execute")) {
      return;
    }
    await this.confirm("run_command", command);
  }

  async checkUrl(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new PermissionDenied(`Not a URL: ${url}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new PermissionDenied(`Only http and https URLs can be fetched: ${url}`);
    if (this.network === "allow") return;
    if (this.network === "deny") throw new PermissionDenied("Network access is denied for this agent.");
    if (this.network === "prompt") return this.confirm("fetch_url", url);
    if (this.network.some((pattern) => wildcard(pattern).test(url) || wildcard(pattern).test(parsed.hostname))) return;
    throw new PermissionDenied(`The URL matches none of this agent's network patterns: ${url}`);
  }

  private asks(access: PermissionAsked): boolean {
    return this.permissions?.ask?.includes(access) ?? false;
  }

  private async confirm(tool: string, detail: string): Promise<void> {
    const request: PermissionRequest = this.agent === undefined ? { tool, detail } : { tool, detail, agent: this.agent };
    if (this.ask === undefined || !(await this.ask(request))) throw new PermissionDenied(`Permission to use ${tool} was not granted: ${detail}`);
  }

  private checkPath(path: string, allowed: (path: string) => boolean, access: "read" | "write"): string {
    if (typeof path !== "string" || path.length === 0) throw new PermissionDenied("A path is required.");
    const absolute = resolve(this.cwd, path);
    const asked = relative(this.cwd, absolute);
    const real = realLocation(absolute);
    const actual = relative(this.pathRules.realCwd, real);
    if (escapes(asked) || escapes(actual)) throw new PermissionDenied(`${path} is outside the working directory; ${access} refused.`);
    if (!allowed(toPosix(asked)) || !allowed(toPosix(actual))) throw new PermissionDenied(`${access === "read" ? "Reading" : "Writing"} ${path} is not permitted for this agent.`);
    return absolute;
  }
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest (a file not yet written). */
function realLocation(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return join(realLocation(parent), basename(path));
  }
}

function escapes(relativePath: string): boolean {
  return relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
}

function toPosix(path: string): string {
  return path.split(sep).join("/") || ".";
}

/** A glob list where `!pattern` excludes; patterns are relative to the working directory. */
function matcher(patterns: readonly string[]): (path: string) => boolean {
  const normalize = (pattern: string): string => pattern.replace(/^\.\//, "");
  const include = patterns.filter((p) => !p.startsWith("!")).map(normalize);
  const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => normalize(p.slice(1)));
  const included = include.length === 0 ? () => false : picomatch(include, { dot: true });
  const excluded = exclude.length === 0 ? () => false : picomatch(exclude, { dot: true });
  return (path) => path === "." ? include.length > 0 : included(path) && !excluded(path);
}

/** Whether a glob list lets anything through (`[]`, a program's `deny`, does not). */
function grantsSome(patterns: readonly string[]): boolean {
  return patterns.some((pattern) => !pattern.startsWith("!"));
}

/** `*` matches anything (commands and URLs are not paths). */
function wildcard(pattern: string): RegExp {
  const body = pattern.trim().split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${body}$`);
}
