/**
 * The environment a tool process gets: the basics a program needs to behave (PATH, HOME, locale,
 * terminal, temporary folder, user), plus only the variables the run names: `RunOptions.toolEnv`
 * for every tool, and a session's `permissions: env: [...]`. The API key and every other variable
 * stay behind, so `echo $ANTHROPIC_API_KEY` or `env` prints nothing worth stealing.
 *
 * Every tool process also gets git's safe settings (GIT_SAFE_SETTINGS), whatever the command: files
 * the model wrote (`HEAD`, `objects/`, `refs/`, `config` in the working directory make it a bare
 * repository; a `.git/config` of a nested repository) must not make an allowed `git status` run a
 * command of theirs (`core.fsmonitor`, hooks, a pager), and no system or user configuration is read.
 */
import { isAbsolute } from "node:path";
import { MODEL_CREDENTIALS } from "../vocabulary.js";

export { MODEL_CREDENTIALS };

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

/** git's own switches against repositories and configuration a model wrote (git 2.39 knows them all). */
const GIT_SAFE_SETTINGS: readonly (readonly [string, string])[] = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
];

/**
 * Switches for the security tests only: a test that shows the OS sandbox contains an escape turns
 * the check in front of it off. Not part of any public API.
 */
export const unsafeForTests = { withoutGitSettings: false };

/** The environment variables that give every git a command runs GIT_SAFE_SETTINGS. */
export function gitSafeEnvironment(): Record<string, string> {
  if (unsafeForTests.withoutGitSettings) return {};
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_COUNT: String(GIT_SAFE_SETTINGS.length),
  };
  GIT_SAFE_SETTINGS.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

export interface ToolEnvironmentSource {
  /** The process's environment (default `process.env`). */
  readonly parent: NodeJS.ProcessEnv;
  /** `RunOptions.toolEnv`: given to every tool process as they are. */
  readonly toolEnv: Readonly<Record<string, string>> | undefined;
  /** `permissions: env:`: names of the parent's variables this agent's tools may see. */
  readonly named: readonly string[] | undefined;
  /** `RunOptions.apiKey`, when the run was given one: withheld like the variables of MODEL_CREDENTIALS. */
  readonly apiKey?: string | undefined;
}

export function toolEnvironment({ parent, toolEnv, named, apiKey }: ToolEnvironmentSource): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && (BASICS.has(name) || name.startsWith("LC_")) && !isSecretName(name)) env[name] = value;
  }
  if (env["PATH"] !== undefined) env["PATH"] = searchPath(env["PATH"]);
  // A named variable that holds the model's credentials, under their names or another, is withheld.
  const credentials = new Set([apiKey, ...MODEL_CREDENTIALS.map((name) => parent[name])].filter((value) => value));
  for (const name of named ?? []) {
    const value = parent[name];
    if (value !== undefined && !MODEL_CREDENTIALS.includes(name) && !credentials.has(value)) env[name] = value;
  }
  // git's settings last: neither the run's variables nor a named one can loosen them.
  return { ...env, ...toolEnv, ...gitSafeEnvironment() };
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
