/**
 * What the sessions of one agent share in a run: the permission guard and tools its permissions
 * give, the system prompt, and whether its sessions have called tools (caching.ts expects several
 * turns of those). Rebuilding the guard, tool list and prompt for every session was a measurable
 * part of the runtime's own cost.
 */
import type { Tool } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { systemPrompt } from "../model/prompt.js";
import { builtinTools } from "../tools/builtin.js";
import { PermissionGuard, type PermissionAsker } from "../tools/permissions.js";
import { asksExplicitly, explicitAsker } from "../tools/approvals.js";
import type { Secrets } from "../tools/secrets.js";
import type { RunPlaces } from "./run-skills.js";
import { toolParam } from "../tools/tool.js";
import type { AgentDefinition, Permissions, RunOptions, ToolDefinition } from "../types.js";
import { modelCredentials } from "../model/client.js";

export interface Toolbox {
  readonly permissions: PermissionGuard;
  readonly tools: readonly ToolDefinition[];
  readonly offered: ReadonlyMap<string, ToolDefinition>;
  /** The tools as the Messages API takes them. */
  readonly params: Tool[];
}

export class AgentKits {
  private readonly toolboxes = new Map<Permissions | undefined, Map<string | undefined, Promise<Toolbox>>>();
  private readonly mcpToolboxes = new Map<Permissions, Map<string | undefined, Promise<Toolbox>>>();
  private readonly systemPrompts = new Map<AgentDefinition | undefined, string>();
  /** Agents whose sessions called tools: their next sessions will likely take several turns (caching.ts). */
  private readonly toolUsers = new Set<string | undefined>();

  constructor(
    private readonly programName: string,
    private readonly options: RunOptions,
    /** The run's secrets: an environment variable a permission passes to tools joins them. */
    private readonly secrets: Secrets,
    /** Tells the run something once (a sandbox that is missing, say). */
    private readonly notice: (message: string | undefined) => void,
    /** The asker of explicit `prompt` permissions when no `onPermission` is given (tools/approvals.ts). */
    private readonly approvals?: (permissions: Permissions) => PermissionAsker | undefined,
    /** Where the run's skills are read (kernel/run-skills.ts): protected from every agent's writes. */
    private readonly places?: () => RunPlaces,
  ) {}

  /**
   * The guard and tools of an agent with these permissions (cached by the permissions object). An
   * agent that may run commands has bubblewrap probed first (whether `run_command` is offered
   * depends on it); the probe runs in the background and only for such agents.
   */
  toolbox(permissions: Permissions | undefined, agent: string | undefined): Promise<Toolbox> {
    let byAgent = this.toolboxes.get(permissions);
    if (byAgent === undefined) this.toolboxes.set(permissions, (byAgent = new Map()));
    let toolbox = byAgent.get(agent);
    if (toolbox === undefined) {
      toolbox = this.build(permissions, agent);
      byAgent.set(agent, toolbox);
    }
    return toolbox;
  }

  /**
   * `toolbox` and the MCP tools of `permissions: mcp:` after the built-in ones, read once per agent
   * (`mcpTools` starts the servers the globs name). Without `mcp:`, the plain toolbox.
   */
  async toolboxWithMcp(
    permissions: Permissions | undefined,
    agent: string | undefined,
    mcpTools: (globs: readonly string[]) => Promise<readonly ToolDefinition[]>,
  ): Promise<Toolbox> {
    // `prompt:` globs are offered too; each of their calls asks a person (PermissionGuard.checkMcpCall).
    const globs = [...(permissions?.mcp ?? []), ...(permissions?.mcpPrompt ?? [])];
    if (permissions === undefined || globs.length === 0) return this.toolbox(permissions, agent);
    let byAgent = this.mcpToolboxes.get(permissions);
    if (byAgent === undefined) this.mcpToolboxes.set(permissions, (byAgent = new Map()));
    let pending = byAgent.get(agent);
    if (pending === undefined) {
      pending = Promise.all([this.toolbox(permissions, agent), mcpTools(globs)]).then(([base, extra]) => {
        const tools = [...base.tools, ...extra];
        return {
          ...base,
          tools,
          offered: new Map(tools.map((tool) => [tool.name, tool])),
          params: tools.map(toolParam),
        };
      });
      byAgent.set(agent, pending);
      const failed = pending;
      // A server that did not start is tried again by the agent's next session.
      failed.catch(() => {
        if (byAgent.get(agent) === failed) byAgent.delete(agent);
      });
    }
    return pending;
  }

  /** Who decides an explicit `prompt` when no `onPermission` is given: `onApproval`, else a durable wait. */
  private explicitAsker(permissions: Permissions | undefined): PermissionAsker | undefined {
    if (permissions === undefined || !asksExplicitly(permissions)) return undefined;
    const onApproval = this.options.onApproval;
    return onApproval === undefined ? this.approvals?.(permissions) : explicitAsker(permissions, onApproval);
  }

  private async build(permissions: Permissions | undefined, agent: string | undefined): Promise<Toolbox> {
    const { toolEnv, resolveHost, fetchTimeoutMs, sandbox } = this.options;
    // A ready client's key too: withheld from tools whatever variable holds it.
    const [apiKey] = modelCredentials(this.options);
    const guard = new PermissionGuard(
      this.options.cwd ?? process.cwd(),
      permissions,
      this.options.onPermission ?? this.explicitAsker(permissions),
      agent,
      {
        ...(toolEnv && { toolEnv }),
        ...(resolveHost && { resolveHost }),
        ...(fetchTimeoutMs && { fetchTimeoutMs }),
        ...(sandbox && { sandbox }),
        ...(apiKey && { apiKey }),
        ...(this.places && { places: this.places().places, placeIdentities: this.places().identities }),
      },
    );
    for (const name of permissions?.env ?? []) this.secrets.add(process.env[name]);
    await guard.prepare();
    this.notice(guard.sandboxNotice());
    const tools = [...builtinTools(guard), ...(this.options.tools ?? [])];
    return {
      permissions: guard,
      tools,
      offered: new Map(tools.map((tool) => [tool.name, tool])),
      params: tools.map(toolParam),
    };
  }

  /** The system prompt of a session of `agent` (or of no agent) that adds no skills or notes of its own. */
  systemPromptOf(agent: AgentDefinition | undefined): string {
    let prompt = this.systemPrompts.get(agent);
    if (prompt === undefined) {
      prompt = systemPrompt(this.programName, agent ?? {}, agent?.prompt);
      this.systemPrompts.set(agent, prompt);
    }
    return prompt;
  }

  /** Whether sessions of this agent (undefined: of no agent) have used tools in this run. */
  usedTools(agent: string | undefined): boolean {
    return this.toolUsers.has(agent);
  }

  recordToolUse(agent: string | undefined): void {
    this.toolUsers.add(agent);
  }
}
