/**
 * An agent's MCP tools: those of the servers its `permissions: mcp:` globs (`server/tool`) allow,
 * offered to the model as `mcp__server__tool` (Claude Code's names; a character the API does not take
 * in a tool name becomes `_`), each a `ToolDefinition` like a built-in one, so a call goes through
 * the same pipeline: the session's checks, redaction, caps, journal, span and events.
 *
 * A result is text and images: text blocks as they are, a resource link or an embedded resource as a
 * line that names it (and an embedded text resource's text), an image of a type the Messages API
 * shows (PNG, JPEG, GIF, WebP) as an image block (journaled and counted against the caps like text;
 * not redacted, since redaction reads text), other images and audio as a line that gives the type
 * and size. `isError` results are thrown, so the model sees them as tool errors.
 */
import { wildcardMatch } from "../wildcard.js";
import { parseMcpGlob } from "./mcp-globs.js";
import type { ToolDefinition, ToolImageType, ToolInputSchema, ToolOutput, ToolOutputBlock } from "../../types.js";
import type { CallToolResult, McpServers, McpTool } from "./servers.js";

/** The API's limit on a tool name. */
const MAX_NAME = 64;

/** The name the model sees. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_NAME);
}

export interface McpToolsOptions {
  readonly redact: (text: string) => string;
  /** Said once per glob that matches no tool of a server it names. */
  readonly notice: (message: string) => void;
}

/**
 * The tools `globs` allow, from the servers they name (started here, if they have not been). A glob
 * naming a server `.mcp.json` does not declare throws (check reports it first, with did-you-mean).
 */
export async function mcpTools(
  globs: readonly string[],
  servers: McpServers,
  signal: AbortSignal,
  options: McpToolsOptions,
): Promise<ToolDefinition[]> {
  const parsed = globs.map(parseMcpGlob);
  const names = servers.names();
  for (const glob of parsed)
    if (!names.some((name) => wildcardMatch(glob.server, name)))
      // A server glob (`mcp: prompt` is `*`) that matches no server is said, as a tool glob is.
      if (glob.server.includes("*"))
        options.notice(
          `permissions: mcp: "${glob.server}/${glob.tool}" matches no MCP server of ${servers.config.file}.`,
        );
      else
        throw new Error(
          `permissions: mcp: names the MCP server ${JSON.stringify(glob.server)}, which ${servers.config.file} does not declare (it declares ${names.length === 0 ? "none" : names.join(", ")}).`,
        );
  const tools: ToolDefinition[] = [];
  const byName = new Map<string, string>();
  for (const server of names) {
    const mine = parsed.filter((glob) => wildcardMatch(glob.server, server));
    if (mine.length === 0) continue;
    const listed = await servers.tools(server, signal);
    for (const glob of mine)
      if (!listed.some((tool) => wildcardMatch(glob.tool, tool.name)))
        options.notice(
          `permissions: mcp: "${glob.server}/${glob.tool}" matches no tool of the MCP server ${server} (it has ${listed.map((tool) => tool.name).join(", ") || "none"}).`,
        );
    for (const tool of listed) {
      if (!mine.some((glob) => wildcardMatch(glob.tool, tool.name))) continue;
      const name = mcpToolName(server, tool.name);
      const other = byName.get(name);
      if (other !== undefined)
        throw new Error(
          `The MCP tools ${other} and ${server}/${tool.name} are both offered as ${name}; narrow permissions: mcp: to one of them.`,
        );
      byName.set(name, `${server}/${tool.name}`);
      tools.push(definition(server, tool, name, servers, options.redact));
    }
  }
  return tools;
}

function definition(
  server: string,
  tool: McpTool,
  name: string,
  servers: McpServers,
  redact: (text: string) => string,
): ToolDefinition {
  const hints = tool.annotations;
  return {
    name,
    // What a server says of its tools reaches the model: redacted like anything a tool hands back.
    description: redact(tool.description ?? `${tool.name} (MCP server ${server})`),
    inputSchema: JSON.parse(redact(JSON.stringify(tool.inputSchema))) as ToolInputSchema,
    repeatable: hints?.readOnlyHint === true || hints?.idempotentHint === true,
    mcp: { server, tool: tool.name },
    async run(input, context) {
      await context.permissions.checkMcpCall(server, tool.name, name, callDetail(input));
      const result = await servers.call(server, tool.name, { ...input }, context.signal);
      if (result.isError === true) throw new Error(resultText(result));
      return resultOutput(result);
    },
  };
}

/** What a person approving the call is shown: its input as JSON. */
function callDetail(input: Readonly<Record<string, unknown>>): string {
  // Whole: a person approves what they read, and a model that pads an input would hide its tail.
  return JSON.stringify(input);
}

const SHOWN_IMAGES: ReadonlySet<string> = new Set<ToolImageType>([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
]);

/** A tool result as the model is given it: its text, with its images as image blocks where it has some. */
export function resultOutput(result: CallToolResult): ToolOutput {
  const content = result.content ?? [];
  if (!content.some(shownImage)) return resultText(result);
  return content.map((block): ToolOutputBlock =>
    shownImage(block)
      ? { type: "image", mediaType: block.mimeType as ToolImageType, data: block.data }
      : { type: "text", text: resultText({ content: [block] }) },
  );
}

function shownImage(
  block: NonNullable<CallToolResult["content"]>[number],
): block is Extract<NonNullable<CallToolResult["content"]>[number], { type: "image" }> {
  return block.type === "image" && SHOWN_IMAGES.has(block.mimeType);
}

/** A tool result as text (an error's, or one without images to show). */
export function resultText(result: Pick<CallToolResult, "content" | "structuredContent">): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(`[${block.type}: ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`);
        break;
      case "resource_link":
        parts.push(
          `[resource: ${block.name}${block.uri === block.name ? "" : ` ${block.uri}`}${block.mimeType === undefined ? "" : ` (${block.mimeType})`}${block.description === undefined ? "" : ` - ${block.description}`}]`,
        );
        break;
      case "resource": {
        const resource = block.resource;
        parts.push(
          "text" in resource && typeof resource.text === "string"
            ? `[resource ${resource.uri}]\n${resource.text}`
            : `[resource ${resource.uri}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}: binary]`,
        );
        break;
      }
      default:
        parts.push(`[${(block as { type: string }).type} content]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return parts.join("\n");
}
