/**
 * The tools every session's agent gets: files (read, write, edit, list, search), commands and URL
 * fetches. Each one asks the PermissionGuard first; a refusal throws before anything is touched.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { lstat, readdir, stat, type FileHandle } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Duplex } from "node:stream";
import { RE2JS } from "re2js";
import { fetchChecked } from "./http-fetch.js";
import { withoutInheritedDescriptors } from "./inherited-descriptors.js";
import { proxiedArguments, startCommandProxy } from "./network-proxy.js";
import { openChecked } from "./open-file.js";
import { realLocation } from "./path-rules.js";
import { SandboxReport } from "./tool.js";
import type { CommandPlan, TextTool, ToolContext, ToolDefinition } from "../types.js";
import type { PermissionGuard } from "./permissions.js";

const MAX_READ_CHARS = 200_000;
const MAX_OUTPUT_CHARS = 50_000;
const MAX_LISTED = 1_000;
/** Of each file searched, the first 4 MB: a huge file cannot take the memory. */
const MAX_SEARCHED_BYTES = 4 * 1024 * 1024;
const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);
const COMMAND_TIMEOUT_MS = 120_000;
/** Between SIGTERM and SIGKILL to a command's process group. */
const KILL_GRACE_MS = 2_000;
/** How long output is still read after the command exits (a process outside its group may hold the pipe). */
const DRAIN_MS = 200;
/**
 * Outside the sandbox a command starts behind this gate: it waits on fd 3 for prosec's word, given once
 * the guard (guardGroup) is running, and ends unstarted when fd 3 closes first (prosec died between the
 * two spawns, which a loaded machine makes likely). A program that does not exist is said on fd 3.
 */
const GATE = 'read go <&3 || exit 1; command -v "$1" >/dev/null || { echo missing >&3; exit 127; }; exec "$@" 3>&-';

const stringProperty = (description: string) => ({ type: "string", description });

export const readFileTool: TextTool = {
  name: "read_file",
  description: "Read a text file. Paths are relative to the working directory.",
  inputSchema: { type: "object", properties: { path: stringProperty("File path") }, required: ["path"] },
  async run(input, context) {
    const handle = await openChecked(String(input["path"]), "read", context.permissions, "read_file");
    try {
      return truncate(await readHead(handle, MAX_READ_CHARS * 4), MAX_READ_CHARS);
    } finally {
      await handle.close();
    }
  },
};

export const writeFileTool: TextTool = {
  name: "write_file",
  description: "Create or replace a text file with the given content. Parent folders are created.",
  inputSchema: {
    type: "object",
    properties: { path: stringProperty("File path"), content: stringProperty("The whole new content") },
    required: ["path", "content"],
  },
  async run(input, context) {
    const handle = await openChecked(String(input["path"]), "write", context.permissions, "write_file");
    const content = String(input["content"] ?? "");
    try {
      await handle.truncate(0);
      await handle.write(content, 0, "utf8");
    } finally {
      await handle.close();
    }
    return `Wrote ${content.length} characters to ${String(input["path"])}.`;
  },
};

export const editFileTool: TextTool = {
  name: "edit_file",
  description: "Replace one exact, unique occurrence of old_text with new_text in a file.",
  inputSchema: {
    type: "object",
    properties: {
      path: stringProperty("File path"),
      old_text: stringProperty("Text to replace; must occur exactly once"),
      new_text: stringProperty("Replacement"),
    },
    required: ["path", "old_text", "new_text"],
  },
  async run(input, context) {
    const handle = await openChecked(String(input["path"]), "edit", context.permissions, "edit_file");
    try {
      const oldText = String(input["old_text"] ?? "");
      const content = await handle.readFile("utf8");
      const first = content.indexOf(oldText);
      if (oldText.length === 0 || first < 0) throw new Error("old_text was not found in the file.");
      if (content.indexOf(oldText, first + 1) >= 0)
        throw new Error("old_text occurs more than once; include more surrounding text.");
      const edited = content.slice(0, first) + String(input["new_text"] ?? "") + content.slice(first + oldText.length);
      await handle.truncate(0);
      await handle.write(edited, 0, "utf8");
    } finally {
      await handle.close();
    }
    return `Edited ${String(input["path"])}.`;
  },
};

export const listFilesTool: TextTool = {
  name: "list_files",
  description: "List files under a folder (recursively, skipping .git and node_modules).",
  inputSchema: { type: "object", properties: { path: stringProperty("Folder, default the working directory") } },
  async run(input, context) {
    const root = await context.permissions.confirmRead(String(input["path"] ?? "."), "list_files");
    const files = await walk(root, context);
    return files.length === 0 ? "(no files)" : files.map((file) => shown(file, context)).join("\n");
  },
};

export const searchFilesTool: TextTool = {
  name: "search_files",
  description:
    "Search the files under a folder for a regular expression in RE2 syntax (no lookaround, no backreferences); returns path:line: text for each match.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: stringProperty("Regular expression, RE2 syntax"),
      path: stringProperty("Folder, default the working directory"),
    },
    required: ["pattern"],
  },
  async run(input, context) {
    const expression = compilePattern(String(input["pattern"]));
    const root = await context.permissions.confirmRead(String(input["path"] ?? "."), "search_files");
    const matches: string[] = [];
    for (const file of await walk(root, context)) {
      const lines = (await readChecked(file, context)).split("\n");
      lines.forEach((line, index) => {
        if (matches.length < MAX_LISTED && expression.test(line))
          matches.push(`${shown(file, context)}:${index + 1}: ${line.slice(0, 300)}`);
      });
      if (matches.length >= MAX_LISTED) break;
    }
    return matches.length === 0 ? "(no matches)" : matches.join("\n");
  },
};

/**
 * The model's pattern, compiled by RE2 (re2js): matching takes time linear in the line, so a
 * catastrophic pattern (`(a+)+$`) on a line the model wrote cannot freeze the run.
 */
function compilePattern(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(
      `The pattern is not valid RE2 syntax (no lookaround, no backreferences): ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** A walked file's text, or "" when it is no longer a regular file it may read (skipped, not fatal). */
async function readChecked(file: string, context: ToolContext): Promise<string> {
  const handle = await openChecked(file, "read", context.permissions, "search_files").catch(() => undefined);
  if (handle === undefined) return "";
  try {
    return await readHead(handle, MAX_SEARCHED_BYTES);
  } finally {
    await handle.close();
  }
}

export const runCommandTool: TextTool = {
  name: "run_command",
  description: "Run a command in the working directory; returns its exit code and output.",
  inputSchema: { type: "object", properties: { command: stringProperty("The command line") }, required: ["command"] },
  async run(input, context) {
    const plan = await context.permissions.checkCommand(String(input["command"] ?? ""), context.skillFolders);
    return runCommand(plan, context);
  },
};

export const fetchUrlTool: TextTool = {
  name: "fetch_url",
  description: "Fetch a URL with GET (following redirects) and return the response body as text.",
  inputSchema: { type: "object", properties: { url: stringProperty("http or https URL") }, required: ["url"] },
  async run(input, context) {
    const url = String(input["url"] ?? "");
    const page = await fetchChecked(url, context.permissions, context.signal);
    return `HTTP ${page.status}${page.url === url ? "" : ` (${page.url})`}\n\n${truncate(page.body, MAX_OUTPUT_CHARS)}`;
  },
};

/** The built-in tools a guard lets this agent see. */
export function builtinTools(permissions: PermissionGuard): ToolDefinition[] {
  const tools = permissions.offersReads() ? [readFileTool, listFilesTool, searchFilesTool] : [];
  if (permissions.offersWrites()) tools.push(writeFileTool, editFileTool);
  if (permissions.offersCommands()) tools.push(runCommandTool);
  if (permissions.offersNetwork()) tools.push(fetchUrlTool);
  return tools;
}

async function walk(root: string, context: ToolContext): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      if (found.length >= MAX_LISTED) return;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) await visit(path);
      } else if (
        (entry.isFile() || (entry.isSymbolicLink() && (await isRegularFile(path)))) &&
        isReadable(path, context)
      ) {
        // Symlinked folders are not followed, and only regular files are listed (a FIFO, a socket or a
        // device is skipped; opening a FIFO would hang).
        found.push(path);
      }
    }
  };
  const kind = await lstat(root);
  if (kind.isDirectory()) await visit(root);
  else if (kind.isFile()) found.push(root);
  else throw new Error(`${shown(root, context)} is not a regular file or folder.`);
  return found;
}

async function isRegularFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/** A path as the model sees it: relative to the working directory (real or as given), with `/`. */
function shown(path: string, context: ToolContext): string {
  const real = realCwd(context.cwd);
  const base = path === real || path.startsWith(`${real}${sep}`) ? real : context.cwd;
  return relative(base, path).split(sep).join("/") || ".";
}

const realCwds = new Map<string, string>();
function realCwd(cwd: string): string {
  let real = realCwds.get(cwd);
  if (real === undefined) realCwds.set(cwd, (real = realLocation(cwd) ?? cwd));
  return real;
}

function isReadable(path: string, context: ToolContext): boolean {
  try {
    context.permissions.readablePath(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a permitted command: argv without a shell, or a line under `/bin/sh -c` (`bash: allow`); inside
 * the OS sandbox (bwrap) when the plan has one. The command leads a process group of its own: at its
 * time limit or when the run is cancelled the whole group gets SIGTERM, then SIGKILL; when the
 * command exits, what it left running in the group is killed, and output still held by a process
 * that left the group is waited for only briefly. (A `setsid` daemon leaves the group: without the
 * sandbox it survives; inside, the PID namespace ends with the command.) Outside the sandbox (whose
 * `--die-with-parent` does the same), a guard process ends the group when prosec itself dies, even by
 * `kill -9`: it waits on a pipe only prosec holds, which the kernel closes when prosec goes. The command
 * starts only once its guard runs (GATE).
 */
async function runCommand(plan: CommandPlan, context: ToolContext): Promise<string> {
  const network = plan.sandbox?.network;
  if (plan.sandbox === undefined || network === undefined) return spawnCommand(plan, context, plan.sandbox?.args);
  const { checkUrl, checkAddresses, resolveHost } = context.permissions;
  const proxy = await startCommandProxy({
    checkUrl: (url) => checkUrl.call(context.permissions, url),
    checkAddresses: (url, addresses) => checkAddresses.call(context.permissions, url, addresses),
    resolveHost,
    allowsTunnel: (host, port) => network.allowsTunnel(host, port),
  });
  try {
    return await spawnCommand(plan, context, proxiedArguments(plan.sandbox.args, proxy.socket), proxy.refusals);
  } finally {
    proxy.close();
  }
}

function spawnCommand(
  plan: CommandPlan,
  context: ToolContext,
  sandboxArgs: readonly string[] | undefined,
  refusals: readonly string[] = [],
): Promise<string> {
  const [command, commandArgs] =
    "shell" in plan ? ["/bin/sh", ["-c", plan.shell]] : [plan.argv[0]!, plan.argv.slice(1)];
  const gated = plan.sandbox === undefined || sandboxArgs === undefined;
  const [file, args] = gated
    ? ["/bin/sh", ["-c", GATE, "prosec-command", command, ...commandArgs]]
    : [plan.sandbox.bwrap, [...sandboxArgs, command, ...commandArgs]];
  return new Promise((resolve, reject) => {
    const child = withoutInheritedDescriptors(["ignore", "pipe", "pipe", gated ? "pipe" : "ignore"], (stdio) =>
      spawn(file, args, { cwd: context.cwd, env: context.permissions.environment(), detached: true, stdio }),
    );
    // Piped as asked above (the fourth stream, fd 3, only when gated).
    const [stdout, stderr] = [child.stdout!, child.stderr!];
    const gate = gated ? (child.stdio[3] as Duplex) : undefined;
    let missing = false;
    gate?.on("error", () => undefined);
    gate?.on("data", (chunk: Buffer) => (missing ||= chunk.toString().includes("missing")));
    const guard = gated && child.pid !== undefined ? guardGroup(child.pid) : undefined;
    gate?.write("go\n");
    let output = "";
    let stopped: string | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // The group is gone.
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: string): void => {
      stopped ??= why;
      signalGroup("SIGTERM");
      killTimer ??= setTimeout(() => signalGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const limit = setTimeout(
      () => stop(`stopped: it ran past the ${COMMAND_TIMEOUT_MS / 60_000}-minute limit`),
      COMMAND_TIMEOUT_MS,
    );
    const cancel = (): void => stop("stopped: the run was cancelled");
    if (context.signal.aborted) cancel();
    else context.signal.addEventListener("abort", cancel, { once: true });
    const collect = (chunk: Buffer): void => {
      if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString("utf8");
    };
    stdout.on("data", collect);
    stderr.on("data", collect);
    const settle = (): void => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      context.signal.removeEventListener("abort", cancel);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      settle();
      guard?.stdin?.end();
      reject(error.code === "ENOENT" ? new Error(`No program ${command} was found.`) : error);
    });
    child.on("exit", (code) => {
      signalGroup("SIGKILL");
      guard?.stdin?.end();
      settle();
      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        stdout.destroy();
        stderr.destroy();
        gate?.destroy();
        if (missing) return reject(new Error(`No program ${command} was found.`));
        const shown = `exit code ${code ?? "none"}${stopped === undefined ? "" : ` (${stopped})`}\n${truncate(output, MAX_OUTPUT_CHARS)}`;
        const undone = plan.sandbox?.afterwards?.() ?? [];
        const problems = [
          ...(undone.length === 0
            ? []
            : [
                `The command changed protected files, which was undone (a command may not create or move repositories, programs, their modules, prose.lock or prose_modules):\n${undone.map((line) => `- ${line}`).join("\n")}`,
              ]),
          ...(refusals.length === 0
            ? []
            : [
                `The command's network requests went through prosec's proxy, which applies this agent's network: permission:\n${refusals.map((line) => `- ${line}`).join("\n")}`,
              ]),
        ];
        if (problems.length === 0) resolve(shown);
        else reject(new SandboxReport([shown, ...problems].join("\n"), [...undone, ...refusals]));
      };
      if (stdout.readableEnded && stderr.readableEnded && (gate?.readableEnded ?? true)) return finish();
      const drain = setTimeout(finish, DRAIN_MS);
      child.once("close", () => (clearTimeout(drain), finish()));
    });
  });
}

/** A process that kills the process group `group` once its input closes: when prosec ends, however it ends. */
function guardGroup(group: number): ChildProcess {
  const guard = spawn("/bin/sh", ["-c", `read line; kill -KILL -${group} 2>/dev/null`], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  guard.on("error", () => undefined);
  guard.unref();
  return guard;
}

/** At most `bytes` of the file from its start, as UTF-8 (a character cut at the end is dropped). */
async function readHead(handle: FileHandle, bytes: number): Promise<string> {
  const size = (await handle.stat()).size;
  const buffer = Buffer.alloc(Math.min(size, bytes));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const text = buffer.subarray(0, filled).toString("utf8");
  return size > bytes ? `${text.replace(/\uFFFD$/, "")}\n[... the file has ${size - filled} more bytes]` : text;
}

function truncate(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}\n[... ${text.length - limit} more characters not shown]`;
}
