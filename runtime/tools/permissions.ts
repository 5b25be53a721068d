/**
 * `permissions:` enforced in code, before a tool runs. The model is treated as hostile: whatever tool
 * calls it makes, it gets no further than this. Defaults when a program says nothing:
 *
 * - read: anything inside the working directory but `.env*` files and `.prose/` (other runs' state);
 * - write: anything inside the working directory but `.git/`, `.prose/`, programs and their modules
 *   (`*.prose`, `*.prose.ts`, `*.prose.js`), `prose.lock` and `prose_modules/`;
 * - bash (`run_command`): `prompt`, i.e. allowed only when `RunOptions.onPermission` says yes;
 * - network (`fetch_url`): `deny`;
 * - env: none; tools get a scrubbed environment (environment.ts).
 *
 * An empty `read:` / `write:` list (`deny` in a program) refuses every path and the tools that need
 * it are not offered; an empty `execute:` list refuses every command. `ask` (a program's `prompt`)
 * puts each read, write or command the lists allow to `onPermission` as well.
 *
 * Paths: path-rules.ts. Commands: only `bash: allow` without a list runs a shell; an `execute:` list
 * or a person's approval runs one parsed simple command without a shell (command-line.ts). URLs:
 * network-rules.ts, checked again at connect time and on every redirect (http-fetch.ts).
 */
import { realpathSync } from "node:fs";
import { posix, relative, sep } from "node:path";
import type {
  CommandPlan,
  DeliveredAnswer,
  PermissionAsked,
  PermissionMode,
  PermissionRequest,
  Permissions,
  ResolveHost,
  Site,
  ToolPermissions,
} from "../types.js";
import { matchesCommandPattern, parseSimpleCommand, showCommand } from "./command-line.js";
import { toolEnvironment } from "./environment.js";
import {
  ENCODED_SEPARATOR,
  isInternalAddress,
  literalAddress,
  matchesNetworkPattern,
  namesHost,
  parseNetworkPattern,
  type NetworkPattern,
} from "./network-rules.js";
import { matchesMcpGlob } from "./mcp/mcp-globs.js";
import { PathRules, type Access } from "./path-rules.js";
import { shownToAPerson } from "./shown-to-a-person.js";
import { inMovedPlace, PROTECTED_PLACES, undoProtectedChanges } from "./protected-names.js";
import { bubblewrapNow, prepareSandbox, probeBubblewrap, type BubblewrapProbe, type SandboxMode } from "./sandbox.js";
import { PermissionDenied } from "./tool.js";

const DEFAULT_READ = ["**"];
const DEFAULT_WRITE = ["**"];

/** The tool call a permission is asked for (`PermissionGuard.forCall`): what a durable approval is keyed by. */
export interface PermissionCall {
  readonly id: string;
  /** The session step's key. */
  readonly step: string;
  readonly at: Site;
  /** The call's input as the model wrote it: part of what an answer is keyed by (approvals.ts). */
  readonly input?: unknown;
  /**
   * The session's attempts before this one (`retry:`, the `restart`s in its conversation): part of
   * what an answer is keyed by, so a yes in one attempt never runs the same call again in the next.
   */
  readonly attempt?: number;
  /**
   * A person's answer to this call, delivered by the store that waited for it (DBOS), with the key of
   * the question it answers: it approves that action only.
   */
  readonly delivered?: DeliveredAnswer;
}

export type PermissionAsker = (request: PermissionRequest, call?: PermissionCall) => boolean | Promise<boolean>;

/** What a guard makes on first use, shared with the guards of its calls (`forCall`). */
interface Made {
  rules?: Record<Access, PathRules>;
  env?: Record<string, string>;
  probed?: BubblewrapProbe;
}

/** What the run, not the program, decides for every guard. */
export interface GuardSettings {
  /** `RunOptions.toolEnv`. */
  readonly toolEnv?: Readonly<Record<string, string>>;
  /** `RunOptions.resolveHost`. */
  readonly resolveHost?: ResolveHost;
  /** `RunOptions.fetchTimeoutMs`. */
  readonly fetchTimeoutMs?: number;
  /** `RunOptions.sandbox` (default `required`). */
  readonly sandbox?: SandboxMode;
  /** The bwrap to use (default: found and probed on PATH); `null` when the machine has none. For tests. */
  readonly bubblewrap?: string | null;
  /** The environment tool processes are given a part of (default `process.env`). */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** `RunOptions.apiKey`: never given to a tool, whatever `env:` names. */
  readonly apiKey?: string;
  /**
   * Where skills are read, protected from writes in the checks and in the sandbox (`protectedPlaces`:
   * the skill roots and the local skill folders of the run's programs); default PROTECTED_PLACES.
   */
  readonly places?: readonly string[];
  /**
   * The identities of the skill folders (`runSkillIdentities`): a write under one of them elsewhere
   * than its place (a copy a command moved) is refused.
   */
  readonly placeIdentities?: ReadonlySet<string>;
}

export class PermissionGuard implements ToolPermissions {
  readonly bash: PermissionMode;
  readonly resolveHost: ResolveHost | undefined;
  readonly fetchTimeoutMs: number | undefined;
  private readonly network: PermissionMode | readonly NetworkPattern[];
  // Made on the first use: most sessions never touch a file or run a command, and compiling globs
  // per session would be most of the runtime's own cost.
  private readonly made: Made = {};
  /** The tool call this guard checks (set on a call's guard, `forCall`). */
  private readonly call: PermissionCall | undefined = undefined;

  constructor(
    readonly cwd: string,
    private readonly permissions: Permissions | undefined,
    private readonly ask: PermissionAsker | undefined,
    private readonly agent?: string,
    private readonly settings: GuardSettings = {},
  ) {
    this.bash = permissions?.bash ?? "prompt";
    const network = permissions?.network ?? "deny";
    this.network =
      typeof network === "string"
        ? network
        : network.map(parseNetworkPattern).filter((pattern) => pattern !== undefined);
    this.resolveHost = settings.resolveHost;
    this.fetchTimeoutMs = settings.fetchTimeoutMs;
  }

  /** This guard for one tool call: what it asks a person is about that call. */
  forCall(call: PermissionCall): PermissionGuard {
    return Object.create(this, { call: { value: call } }) as PermissionGuard;
  }

  /** Whether the agent may run commands at all (before asking anyone, and whatever the sandbox). */
  mayRunCommands(): boolean {
    return this.bash !== "deny" && this.permissions?.execute?.length !== 0;
  }

  /**
   * Probes bubblewrap without blocking, when this agent may run commands in it: awaited before the
   * session's first request, which is when whether `run_command` is offered is decided.
   */
  async prepare(): Promise<void> {
    if (!this.wouldOfferCommands() || this.sandboxMode() === "off" || this.settings.bubblewrap !== undefined) return;
    this.made.probed = await probeBubblewrap();
  }

  /** Whether `run_command` is offered to the model at all. */
  offersCommands(): boolean {
    if (!this.wouldOfferCommands()) return false;
    return this.sandboxMode() !== "required" || this.bubblewrap() !== undefined;
  }

  /** Whether `run_command` is offered when the sandbox allows: permitted, by the lists or by someone to ask. */
  private wouldOfferCommands(): boolean {
    if (!this.mayRunCommands()) return false;
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
    return this.network === "allow" || (this.permissions?.network?.length ?? 0) > 0;
  }

  /** The real absolute path to read (every existing link resolved), or PermissionDenied. */
  readablePath(path: string): string {
    return this.checkPath(path, "read");
  }

  writablePath(path: string): string {
    return this.checkPath(path, "write");
  }

  /** `readablePath`, then, under `read: prompt`, `onPermission` for this path (`tool` names the asker). */
  async confirmRead(path: string, tool: string): Promise<string> {
    const absolute = this.readablePath(path);
    if (this.asks("read")) await this.confirm(tool, this.shownPath(path, absolute));
    return absolute;
  }

  /** `writablePath`, then, under `write: prompt`, `onPermission` for this path. */
  async confirmWrite(path: string, tool: string): Promise<string> {
    const absolute = this.writablePath(path);
    if (this.asks("write")) await this.confirm(tool, this.shownPath(path, absolute));
    return absolute;
  }

  /**
   * A path as a person approving it is shown it: where it really leads, relative to the working
   * directory, then what the model wrote when that is not the same path (a link, `a/../b`).
   */
  private shownPath(asked: string, real: string): string {
    const shown = relative(realpathSync.native(this.cwd), real).split(sep).join("/") || ".";
    const written = posix.normalize(String(asked));
    return written === shown ? shown : `${shown} (written as ${JSON.stringify(String(asked))})`;
  }

  /**
   * How `command` may run, or PermissionDenied. A shell only under `bash: allow` with no `execute:`
   * list and no one to ask; otherwise the line must be one simple command, which runs as argv.
   */
  async checkCommand(command: string, readOnly: readonly string[] = []): Promise<CommandPlan> {
    if (this.bash === "deny") throw new PermissionDenied("Running commands is denied for this agent (bash: deny).");
    const execute = this.permissions?.execute;
    if (execute?.length === 0) throw new PermissionDenied("Running commands is denied for this agent (execute: deny).");
    if (this.runsShell()) return this.sandboxed({ shell: command }, readOnly);
    const parsed = parseSimpleCommand(command);
    if ("refusal" in parsed) throw new PermissionDenied(parsed.refusal);
    const listed = execute?.some((pattern) => matchesCommandPattern(pattern, parsed.argv)) ?? false;
    if (listed && !this.asks("execute")) return this.sandboxed(parsed, readOnly);
    if (!listed && execute !== undefined && this.bash === "allow")
      throw new PermissionDenied(`The command is not in this agent's execute list: ${command}`);
    await this.confirm("run_command", showCommand(parsed.argv));
    return this.sandboxed(parsed, readOnly);
  }

  /** Whether commands run under a shell: `bash: allow`, no `execute:` list, no one asked. */
  private runsShell(): boolean {
    return this.bash === "allow" && this.permissions?.execute === undefined && !this.asks("execute");
  }

  private sandboxed(plan: { shell: string } | { argv: readonly string[] }, readOnly: readonly string[]): CommandPlan {
    const mode = this.sandboxMode();
    if (mode === "off") return plan;
    const bwrap = this.bubblewrap();
    if (bwrap === undefined) {
      if (mode === "required")
        throw new PermissionDenied("Commands of this agent run only inside the OS sandbox, which this machine lacks.");
      return plan;
    }
    const cwd = realpathSync.native(this.cwd);
    const sandbox = prepareSandbox({
      cwd,
      read: this.permissions?.read,
      write: this.permissions?.write,
      ...(readOnly.length > 0 && { readOnly }),
      ...(this.settings.places && { places: this.settings.places }),
      ...(this.settings.placeIdentities && { placeIdentities: this.settings.placeIdentities }),
    });
    if ("refusal" in sandbox) throw new PermissionDenied(sandbox.refusal);
    const scan = {
      writable: sandbox.writable,
      before: sandbox.protectedBefore,
      cwd,
      ...(this.settings.places && { places: this.settings.places }),
    };
    const afterwards = (): string[] => undoProtectedChanges(scan);
    const network =
      this.network === "deny" || this.network === "prompt" ? undefined : { allowsTunnel: this.allowsTunnel };
    return { ...plan, sandbox: { bwrap, args: sandbox.args, afterwards, ...(network && { network }) } };
  }

  /**
   * Whether every https path on `host:port` may be fetched: what a CONNECT tunnel through the
   * commands' proxy opens (https shows the proxy nothing more).
   */
  private readonly allowsTunnel = (host: string, port: string): boolean => {
    if (this.network === "allow") return true;
    if (typeof this.network === "string") return false;
    const url = new URL(`https://${host}:${port}/`);
    return this.network.some(
      (pattern) =>
        pattern.path === undefined &&
        (pattern.scheme === undefined || pattern.scheme === "https:") &&
        matchesNetworkPattern(pattern, url),
    );
  };

  private bubblewrap(): string | undefined {
    const probe = this.probe();
    return probe.ok ? probe.path : undefined;
  }

  private probe(): BubblewrapProbe {
    const given = this.settings.bubblewrap;
    if (given === null) return { ok: false, reason: "missing" };
    if (given !== undefined) return { ok: true, path: given };
    return (this.made.probed ??= bubblewrapNow());
  }

  async checkMcpCall(server: string, tool: string, name: string, detail: string): Promise<void> {
    const matches = (globs: readonly string[] | undefined): boolean =>
      globs?.some((glob) => matchesMcpGlob(glob, server, tool)) ?? false;
    const prompted = matches(this.permissions?.mcpPrompt);
    if (!prompted && !matches(this.permissions?.mcp))
      throw new PermissionDenied(`The MCP tool ${server}/${tool} is not in this agent's mcp: list.`);
    if (prompted) await this.confirm(name, detail);
  }

  /** The URL parsed, when the permissions let it be fetched; its addresses are checked by `checkAddresses`. */
  async checkUrl(url: string): Promise<URL> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new PermissionDenied(`Not a URL: ${url}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw new PermissionDenied(`Only http and https URLs can be fetched: ${url}`);
    if (parsed.username !== "" || parsed.password !== "")
      throw new PermissionDenied(`URLs with a user name or password are not fetched: ${url}`);
    if (this.network === "deny") throw new PermissionDenied("Network access is denied for this agent.");
    if (this.network === "prompt") await this.confirm("fetch_url", parsed.href);
    else if (this.network !== "allow" && !this.network.some((pattern) => matchesNetworkPattern(pattern, parsed))) {
      const encoded = ENCODED_SEPARATOR.test(parsed.pathname)
        ? " (a path with an encoded / or \\, %2F or %5C, matches no pattern that names a path)"
        : "";
      throw new PermissionDenied(`The URL matches none of this agent's network patterns${encoded}: ${url}`);
    }
    return parsed;
  }

  /**
   * Refuses addresses inside the machine or a private network unless a pattern names the URL's host
   * exactly (`network: allow` and wildcard patterns never do).
   */
  checkAddresses(url: URL, addresses: readonly string[]): void {
    const named = typeof this.network !== "string" && this.network.some((pattern) => namesHost(pattern, url));
    if (named) return;
    const internal = addresses.find(isInternalAddress);
    if (internal === undefined) return;
    const where =
      literalAddress(url.hostname) === undefined ? `${url.hostname} resolves to ${internal}, which` : `${internal}`;
    throw new PermissionDenied(
      `${where} is a loopback, private or reserved address; only a network pattern naming it exactly allows it.`,
    );
  }

  /**
   * How this agent's commands are sandboxed: `required` (an allow-list is no boundary without the OS
   * sandbox: `git grep -O`, `sed e`, `make` run what the model wrote), unless the run says.
   */
  sandboxMode(): SandboxMode {
    return this.settings.sandbox ?? "required";
  }

  /**
   * What the run should say once about this agent's commands, when they cannot have the sandbox:
   * undefined when they do, when the run turned it off, or when the agent runs no commands.
   */
  sandboxNotice(): string | undefined {
    const mode = this.sandboxMode();
    if (!this.wouldOfferCommands() || mode === "off") return undefined;
    const probe = this.probe();
    if (probe.ok) return undefined;
    const who = this.agent === undefined ? "A session" : `Agent ${this.agent}`;
    const why =
      probe.reason === "missing"
        ? "bubblewrap is not installed (install it: apt-get install bubblewrap)"
        : `bubblewrap cannot create namespaces here${probe.detail === undefined ? "" : ` (${probe.detail})`}: in a container, allow user namespaces (Docker: --security-opt seccomp=unconfined, or a profile that allows clone and unshare); on Ubuntu 24.04, allow them for bwrap in AppArmor (kernel.apparmor_restrict_unprivileged_userns=0, or a profile for /usr/bin/bwrap)`;
    if (mode === "required")
      return `${who} may run commands, which run only inside the OS sandbox, and ${why}: run_command is not offered. Or run with --sandbox auto (sandbox where possible, else run as you) or --sandbox off to accept the risk.`;
    if (this.offersCommands())
      return `${who}'s commands run without the OS sandbox (--sandbox auto): ${why}. Only the permission checks stand between them and the machine, and an allow-list is not a boundary.`;
    return undefined;
  }

  /** The environment of this agent's tool processes. */
  environment(): Record<string, string> {
    return (this.made.env ??= toolEnvironment({
      parent: this.settings.parentEnv ?? process.env,
      toolEnv: this.settings.toolEnv,
      named: this.permissions?.env,
      apiKey: this.settings.apiKey,
    }));
  }

  private asks(access: PermissionAsked): boolean {
    return this.permissions?.ask?.includes(access) ?? false;
  }

  private async confirm(tool: string, asked: string): Promise<void> {
    const detail = shownToAPerson(asked);
    const request: PermissionRequest =
      this.agent === undefined ? { tool, detail } : { tool, detail, agent: this.agent };
    if (this.ask === undefined || !(await this.ask(request, this.call)))
      throw new PermissionDenied(`Permission to use ${tool} was not granted: ${detail}`);
  }

  private checkPath(path: string, access: Access): string {
    if (typeof path !== "string" || path.length === 0) throw new PermissionDenied("A path is required.");
    const rules = (this.made.rules ??= {
      read: new PathRules(this.cwd, this.permissions?.read ?? DEFAULT_READ, "read"),
      write: new PathRules(this.cwd, this.permissions?.write ?? DEFAULT_WRITE, "write", this.settings.places),
    });
    const verdict = rules[access].judge(path);
    const identities = this.settings.placeIdentities;
    if (verdict.ok && access === "write" && identities !== undefined) {
      const realCwd = realpathSync.native(this.cwd);
      if (inMovedPlace(verdict.real, realCwd, this.settings.places ?? PROTECTED_PLACES, identities))
        throw new PermissionDenied(
          `Writing ${path} is not permitted for this agent: it is in a skill folder moved there.`,
        );
    }
    if (verdict.ok) return verdict.real;
    if (verdict.system)
      throw new PermissionDenied(`${path} leads to a device or kernel file (/proc, /dev, /sys); ${access} refused.`);
    if (verdict.outside) throw new PermissionDenied(`${path} is outside the working directory; ${access} refused.`);
    if (verdict.credentials === true)
      throw new PermissionDenied(
        `Reading ${path} is not permitted: it may hold a checkout's credentials (a secret reaches a tool only through env:). Run git log, git remote -v or git config --get in a command instead: they see it with credentials removed.`,
      );
    throw new PermissionDenied(`${access === "read" ? "Reading" : "Writing"} ${path} is not permitted for this agent.`);
  }
}

/** Whether a glob list lets anything through (`[]`, a program's `deny`, does not). */
function grantsSome(patterns: readonly string[]): boolean {
  return patterns.some((pattern) => !pattern.startsWith("!"));
}
