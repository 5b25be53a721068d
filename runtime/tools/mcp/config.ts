/**
 * The project's `.mcp.json`, as Claude Code reads it: `{"mcpServers": {"name": {"command", "args",
 * "env"} | {"type": "http", "url", "headers"}}}`. The file that counts is the nearest one at or above a
 * folder (the program's, as for `prose.lock`). `${VAR}` and `${VAR:-default}` in a server's command,
 * arguments, environment, URL and headers are taken from the environment when the server starts
 * (`expandServer`), never when the file is read: check, the LSP and `cost` read names only, and the
 * expanded values are secrets of the run (never journaled, traced or checkpointed).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { jsonProblem } from "../../json-problem.js";

export const MCP_CONFIG_FILE = ".mcp.json";

export interface StdioServerSpec {
  readonly type: "stdio";
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface HttpServerSpec {
  readonly type: "http";
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type McpServerSpec = StdioServerSpec | HttpServerSpec;

export interface McpConfig {
  /** The absolute path of the `.mcp.json` read. */
  readonly file: string;
  readonly servers: ReadonlyMap<string, McpServerSpec>;
}

/** A `.mcp.json` that cannot be used, or a `${VAR}` that is not set: the message names the file and the place. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";
}

/** The nearest `.mcp.json` at or above `folder`, or undefined. */
export function findMcpConfig(folder: string): string | undefined {
  for (let current = resolve(folder); ; current = dirname(current)) {
    const candidate = join(current, MCP_CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return undefined;
  }
}

/** Reads and validates a `.mcp.json` (nothing is expanded). */
export function readMcpConfig(file: string): McpConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new McpConfigError(`${file}: not valid JSON: ${jsonProblem(error)}`);
  }
  return parseMcpConfig(parsed, file);
}

export function parseMcpConfig(parsed: unknown, file: string): McpConfig {
  if (!isRecord(parsed) || !isRecord(parsed["mcpServers"]))
    throw new McpConfigError(`${file}: expected an object with "mcpServers": { "name": { ... } }.`);
  const servers = new Map<string, McpServerSpec>();
  for (const [name, entry] of Object.entries(parsed["mcpServers"])) {
    const where = `${file}: mcpServers.${name}`;
    if (!/^[\w.-]+$/.test(name))
      throw new McpConfigError(`${where}: a server's name is letters, digits, "_", "-" and "." only.`);
    if (!isRecord(entry)) throw new McpConfigError(`${where}: expected an object.`);
    const type = entry["type"] ?? (entry["url"] === undefined ? "stdio" : "http");
    if (type === "stdio") {
      const command = entry["command"];
      if (typeof command !== "string" || command === "")
        throw new McpConfigError(`${where}: a stdio server needs "command" (a program to start).`);
      servers.set(name, {
        type: "stdio",
        name,
        command,
        args: stringList(entry["args"], `${where}.args`),
        env: stringRecord(entry["env"], `${where}.env`),
      });
    } else if (type === "http") {
      const url = entry["url"];
      if (typeof url !== "string" || url === "")
        throw new McpConfigError(`${where}: an http server needs "url" (its streamable HTTP endpoint).`);
      servers.set(name, { type: "http", name, url, headers: stringRecord(entry["headers"], `${where}.headers`) });
    } else {
      throw new McpConfigError(
        `${where}: type ${JSON.stringify(type)} is not supported; prosec speaks "stdio" and "http" (streamable HTTP).`,
      );
    }
  }
  return { file, servers };
}

/** Where a `${VAR}` was expanded: the value and the variable, so the run can treat the value as a secret. */
export interface Expansion {
  readonly name: string;
  readonly value: string;
}

/**
 * The server with every `${VAR}` / `${VAR:-default}` replaced from `env`. An unset variable without a
 * default fails, naming it and the server; `expanded` is told every value taken from the environment.
 */
export function expandServer(
  spec: McpServerSpec,
  env: NodeJS.ProcessEnv,
  expanded: (expansion: Expansion) => void,
): McpServerSpec {
  const expand = (text: string): string =>
    text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback?: string) => {
      const value = env[name];
      if (value !== undefined && value !== "") {
        expanded({ name, value });
        return value;
      }
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(
        `The MCP server ${spec.name} (.mcp.json) needs the environment variable ${name}, which is not set.`,
      );
    });
  const record = (values: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value)]));
  return spec.type === "stdio"
    ? { ...spec, command: expand(spec.command), args: spec.args.map(expand), env: record(spec.env) }
    : { ...spec, url: expand(spec.url), headers: record(spec.headers) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new McpConfigError(`${where}: expected a list of strings.`);
  return value;
}

function stringRecord(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || !Object.values(value).every((item) => typeof item === "string"))
    throw new McpConfigError(`${where}: expected an object of strings.`);
  return value as Record<string, string>;
}
