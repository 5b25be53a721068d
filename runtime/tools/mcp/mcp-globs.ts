/**
 * `permissions: mcp:` globs over `server/tool` (a glob without `/` names a whole server: `memory` is
 * `memory/*`).
 */
import { wildcardMatch } from "../wildcard.js";

export interface McpGlob {
  readonly server: string;
  readonly tool: string;
}

export function parseMcpGlob(glob: string): McpGlob {
  const slash = glob.indexOf("/");
  return slash < 0 ? { server: glob, tool: "*" } : { server: glob.slice(0, slash), tool: glob.slice(slash + 1) };
}

/** Whether `glob` allows the tool `tool` of the server `server`. */
export function matchesMcpGlob(glob: string, server: string, tool: string): boolean {
  const parsed = parseMcpGlob(glob);
  return wildcardMatch(parsed.server, server) && wildcardMatch(parsed.tool, tool);
}
