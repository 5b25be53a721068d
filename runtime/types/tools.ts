/**
 * Tools a session's agent may call, and the permission checks they go through (tools/).
 */

/** JSON Schema of a tool's input, as the Messages API takes it. */
export interface ToolInputSchema {
  readonly type: "object";
  readonly properties?: Readonly<Record<string, unknown>>;
  readonly required?: readonly string[];
}

export interface ToolContext {
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** The session's `permissions:`, enforced: each check throws when the access is not granted. */
  readonly permissions: ToolPermissions;
  /**
   * The real folders of the session's skills outside the working directory (`~/.claude/skills/x`):
   * bound read-only into the sandbox of its commands, so a skill's scripts run but are not written.
   */
  readonly skillFolders?: readonly string[];
}

/** Resolves a host name to its addresses (IPv4 or IPv6 text). */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/** What a permitted command runs: a command line under `/bin/sh -c`, or argv without a shell. */
export type CommandPlan = ({ readonly shell: string } | { readonly argv: readonly string[] }) & {
  /**
   * The OS sandbox to run it in (tools/sandbox.ts): bwrap and its arguments up to the command's own;
   * `afterwards` undoes what the command did to protected names and says what (protected-names.ts).
   */
  readonly sandbox?: {
    readonly bwrap: string;
    readonly args: readonly string[];
    readonly afterwards?: () => readonly string[];
    /** Set when the agent may reach the network: its commands do, through prosec's proxy (network-proxy.ts). */
    readonly network?: { allowsTunnel(host: string, port: string): boolean };
  };
};

/**
 * What a tool asks before it touches the machine (`tools/permissions.ts` answers). Paths are
 * resolved against the working directory; `confirm...` and `checkCommand` also ask
 * `RunOptions.onPermission` when the permission is `prompt`.
 */
export interface ToolPermissions {
  readablePath(path: string): string;
  writablePath(path: string): string;
  confirmRead(path: string, tool: string): Promise<string>;
  confirmWrite(path: string, tool: string): Promise<string>;
  /** `readOnly`: folders outside the working directory the command's sandbox shows, read-only. */
  checkCommand(command: string, readOnly?: readonly string[]): Promise<CommandPlan>;
  /**
   * Throws when this agent's `mcp:` globs do not allow the MCP tool `server/tool`; when a `prompt:`
   * glob matches it, asks `onPermission` (as `name`, the tool's name for the model, with `detail`).
   */
  checkMcpCall(server: string, tool: string, name: string, detail: string): Promise<void>;
  /** Throws when the URL may not be fetched; returns it parsed. */
  checkUrl(url: string): Promise<URL>;
  /** Throws when one of the addresses the URL's host has may not be reached. */
  checkAddresses(url: URL, addresses: readonly string[]): void;
  readonly resolveHost: ResolveHost | undefined;
  /** `RunOptions.fetchTimeoutMs`: the deadline of one `fetch_url` call. */
  readonly fetchTimeoutMs?: number | undefined;
  /** The environment of this agent's tool processes. */
  environment(): Record<string, string>;
}

/** The image types the Messages API shows a model. */
export type ToolImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/**
 * A part of what a tool hands back: text, or an image (base64) the model is shown as an image block
 * (an MCP tool's image result). Images count against the output caps by their base64 length and are
 * not redacted: redaction reads text.
 */
export type ToolOutputBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mediaType: ToolImageType; readonly data: string };

/** What a tool returns: text, or text and images in order. */
export type ToolOutput = string | readonly ToolOutputBlock[];

/**
 * A tool a session's agent can call. `run` returns what the model sees (text, or text and images);
 * throwing reports the error to the model (as an `is_error` result), which can then try something else.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  /**
   * Whether a call cut off by a crash may run again on resume (it reads, or running it twice does what
   * once does): an MCP tool marked `readOnlyHint` or `idempotentHint`. Otherwise the model is told the
   * call was interrupted and its effect is unknown.
   */
  readonly repeatable?: boolean;
  /** For a tool of an MCP server: the server and the tool's own name (the journal keeps both). */
  readonly mcp?: { readonly server: string; readonly tool: string };
  run(input: Readonly<Record<string, unknown>>, context: ToolContext): Promise<ToolOutput> | ToolOutput;
}

/** A tool whose output is always text (every built-in one). */
export interface TextTool extends ToolDefinition {
  run(input: Readonly<Record<string, unknown>>, context: ToolContext): Promise<string> | string;
}

/**
 * MCP servers that outlive a run: `prosec worker` keeps one set for all its runs (started lazily once
 * per worker, stopped when it stops). Made by `new McpServerPool(...)` (kernel/run-mcp.ts); a run given
 * one (`RunOptions.mcpServers`) uses its servers and never stops them: its owner closes it.
 */
export interface SharedMcpServers {
  /** Stops every server started, waiting for each to exit. */
  close(): Promise<void>;
  /** Signals every server process at once, without waiting (a second Ctrl-C). */
  stopNow(): void;
}
