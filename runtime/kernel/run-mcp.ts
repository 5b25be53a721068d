/**
 * The MCP servers of a run, shared with the programs it calls: `.mcp.json` is read the first time an
 * agent with `permissions: mcp:` starts a session (a run without one never reads it, nor loads the
 * client), and the servers started are stopped when the top-level run ends, whatever the ending.
 *
 * A run given `RunOptions.mcpServers` (a worker's `McpServerPool`) uses those instead: started once
 * per worker, they outlive the run and stop when the worker closes the pool (DIALECT.md, "once per
 * worker on DBOS, living as long as the worker").
 */
import { ProseError } from "../errors.js";
import { modelCredentials } from "../model/client.js";
import { findMcpConfig, McpConfigError, readMcpConfig } from "../tools/mcp/config.js";
import { mcpTools } from "../tools/mcp/mcp-tools.js";
import { McpServers } from "../tools/mcp/servers.js";
import type { Secrets } from "../tools/secrets.js";
import type { RunOptions, SharedMcpServers, ToolDefinition } from "../types.js";

export interface McpPoolSettings {
  /** The project folder: where `.mcp.json` is looked for and stdio servers start. */
  readonly cwd: string;
  /** The `.mcp.json` to read (default: the nearest at or above `cwd`). */
  readonly mcpConfig?: string | undefined;
  /** The model's API key: never handed to a server. */
  readonly apiKey: string | undefined;
  /** A piece of a stdio server's stderr, not yet redacted. */
  readonly log: (server: string, text: string) => void;
  /** A value expanded from the environment for a server (besides `McpServerPool.secrets`). */
  readonly secret?: (value: string) => void;
}

/** The servers `.mcp.json` declares, read on first use, started lazily, stopped by `close`. */
export class McpServerPool implements SharedMcpServers {
  private servers: McpServers | undefined;
  /** Values expanded from the environment for the servers so far: every run that uses them redacts them. */
  readonly secrets = new Set<string>();

  constructor(private readonly settings: McpPoolSettings) {}

  started(): McpServers {
    if (this.servers !== undefined) return this.servers;
    const { cwd } = this.settings;
    const file = this.settings.mcpConfig ?? findMcpConfig(cwd);
    if (file === undefined)
      throw new ProseError(
        `An agent has permissions: mcp:, and there is no .mcp.json in ${cwd} or a folder above it to declare MCP servers.`,
      );
    this.servers = new McpServers(readMcpConfig(file), {
      cwd,
      env: process.env,
      apiKey: this.settings.apiKey,
      secret: (value) => {
        this.secrets.add(value);
        this.settings.secret?.(value);
      },
      log: this.settings.log,
    });
    return this.servers;
  }

  async close(): Promise<void> {
    const servers = this.servers;
    this.servers = undefined;
    await servers?.close();
  }

  stopNow(): void {
    this.servers?.stopNow();
  }
}

export class RunMcp {
  private readonly pool: McpServerPool;
  /** Whether the pool is this run's own, to stop when it ends. */
  private readonly owned: boolean;

  constructor(
    options: RunOptions,
    private readonly secrets: Secrets,
    /** A piece of a stdio server's stderr, redacted, for the run's trace. */
    log: (server: string, text: string) => void,
    private readonly notice: (message: string) => void,
  ) {
    const shared = options.mcpServers;
    if (shared !== undefined && !(shared instanceof McpServerPool))
      throw new TypeError("RunOptions.mcpServers takes an McpServerPool");
    this.owned = shared === undefined;
    this.pool =
      shared ??
      new McpServerPool({
        cwd: options.cwd ?? process.cwd(),
        mcpConfig: options.mcpConfig,
        apiKey: modelCredentials(options)[0] ?? process.env["ANTHROPIC_API_KEY"],
        secret: (value) => this.secrets.add(value),
        log: (server, text) => log(server, this.secrets.redact(text)),
      });
  }

  /** The tools `globs` give an agent, from servers started now if they were not. */
  async tools(globs: readonly string[], signal: AbortSignal): Promise<ToolDefinition[]> {
    try {
      const tools = await mcpTools(globs, this.pool.started(), signal, {
        redact: (text) => this.secrets.redact(text),
        notice: this.notice,
      });
      // A shared pool's servers may have been started by another run: their expanded values are secrets here too.
      for (const value of this.pool.secrets) this.secrets.add(value);
      return tools;
    } catch (error) {
      if (error instanceof McpConfigError) throw new ProseError(error.message);
      throw error;
    }
  }

  /** Stops every server this run started (a shared pool's are left to its owner). */
  async close(): Promise<void> {
    if (this.owned) await this.pool.close();
  }
}
