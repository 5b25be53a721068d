/**
 * The environment a tool process gets: the basics a program needs to behave (PATH, HOME, locale,
 * terminal, temporary folder, user), plus only the variables the run names: `RunOptions.toolEnv`
 * for every tool, and a session's `permissions: env: [...]`. The API key and every other variable
 * stay behind, so `echo $ANTHROPIC_API_KEY` or `env` prints nothing worth stealing.
 */
import { isAbsolute } from "node:path";

const BASICS = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
]);

/** Names whose values are secrets: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*` (any case). */
export function isSecretName(name: string): boolean {
  return /(_KEY|_TOKEN|_SECRET)$|PASSWORD/i.test(name);
}

export interface ToolEnvironmentSource {
  /** The process's environment (default `process.env`). */
  readonly parent: NodeJS.ProcessEnv;
  /** `RunOptions.toolEnv`: given to every tool process as they are. */
  readonly toolEnv: Readonly<Record<string, string>> | undefined;
  /** `permissions: env:`: names of the parent's variables this agent's tools may see. */
  readonly named: readonly string[] | undefined;
}

export function toolEnvironment({ parent, toolEnv, named }: ToolEnvironmentSource): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && (BASICS.has(name) || name.startsWith("LC_")) && !isSecretName(name)) env[name] = value;
  }
  if (env["PATH"] !== undefined) env["PATH"] = searchPath(env["PATH"]);
  for (const name of named ?? []) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...toolEnv };
}

/**
 * PATH without empty or relative entries: either would make a bare command name (`ls`) find a
 * program in the working directory, which the model can write.
 */
function searchPath(path: string): string {
  return path
    .split(":")
    .filter((entry) => entry !== "" && isAbsolute(entry))
    .join(":");
}
