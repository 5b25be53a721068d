/**
 * What `check`, `build`, `run` and the LSP know of a program's MCP servers: the names the nearest
 * `.mcp.json` at or above the program's folder declares (DIALECT.md, "Tools beyond the built-ins").
 * Nothing is expanded and no server is started.
 */
import { dirname, relative } from "node:path";
import { findMcpConfig, readMcpConfig } from "../../runtime/tools/mcp/config.js";
import type { DeclaredMcpServers } from "../phases/2-analyze/index.js";

export function declaredMcpServers(programPath: string, cwd = process.cwd()): DeclaredMcpServers {
  const file = findMcpConfig(dirname(programPath));
  if (file === undefined) return { file: undefined, names: [] };
  const shown = relative(cwd, file) || file;
  try {
    return { file: shown, names: [...readMcpConfig(file).servers.keys()] };
  } catch (error) {
    return { file: shown, names: [], problem: (error as Error).message };
  }
}
