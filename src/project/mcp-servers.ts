/**
 * What `check`, `build`, `run` and the LSP know of a program's tools beyond the built-ins (DIALECT.md,
 * "Tools beyond the built-ins"): the MCP servers the nearest `.mcp.json` at or above the program's
 * folder declares (nothing expanded, no server started), and the Agent Skills installed for the
 * project (`cwd`, as the run resolves them).
 */
import { homedir } from "node:os";
import { dirname, relative } from "node:path";
import { findMcpConfig, installedSkills, readMcpConfig } from "../../runtime/host.js";
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

/** The options `checkProgram` takes for them. */
export function projectTools(
  programPath: string,
  cwd = process.cwd(),
): { readonly mcpServers: DeclaredMcpServers; readonly installedSkills: readonly string[] } {
  return { mcpServers: declaredMcpServers(programPath, cwd), installedSkills: installedSkills(cwd, homedir()) };
}
