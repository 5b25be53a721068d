/**
 * The MCP servers of a run, shared with the programs it calls: `.mcp.json` is read the first time an
 * agent with `permissions: mcp:` starts a session (a run without one never reads it, nor loads the
 * client), and the servers started are stopped when the top-level run ends, whatever the ending.
 */
import { ProseError } from "../errors.js";
import { findMcpConfig, McpConfigError, readMcpConfig } from "../tools/mcp/config.js";
import { mcpTools } from "../tools/mcp/mcp-tools.js";
import { McpServers } from "../tools/mcp/servers.js";
import type { Secrets } from "../tools/secrets.js";
import type { RunOptions, ToolDefinition } from "../types.js";

export class RunMcp {
  private servers: McpServers | undefined;

  constructor(
    private readonly options: RunOptions,
    private readonly secrets: Secrets,
    /** A piece of a stdio server's stderr, redacted, for the run's trace. */
    private readonly log: (server: string, text: string) => void,
    private readonly notice: (message: string) => void,
  ) {}

  /** The tools `globs` give an agent, from servers started now if they were not. */
  async tools(globs: readonly string[], signal: AbortSignal): Promise<ToolDefinition[]> {
    try {
      return await mcpTools(globs, this.started(), signal, {
        redact: (text) => this.secrets.redact(text),
        notice: this.notice,
      });
    } catch (error) {
      if (error instanceof McpConfigError) throw new ProseError(error.message);
      throw error;
    }
  }

  /** Stops every server this run started. */
  async close(): Promise<void> {
    const servers = this.servers;
    this.servers = undefined;
    await servers?.close();
  }

  private started(): McpServers {
    if (this.servers !== undefined) return this.servers;
    const cwd = this.options.cwd ?? process.cwd();
    const file = this.options.mcpConfig ?? findMcpConfig(cwd);
    if (file === undefined)
      throw new ProseError(
        `An agent has permissions: mcp:, and there is no .mcp.json in ${cwd} or a folder above it to declare MCP servers.`,
      );
    this.servers = new McpServers(readMcpConfig(file), {
      cwd,
      env: process.env,
      apiKey: this.options.apiKey ?? process.env["ANTHROPIC_API_KEY"],
      secret: (value) => this.secrets.add(value),
      log: (server, text) => this.log(server, this.secrets.redact(text)),
    });
    return this.servers;
  }
}
