import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));
const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI (`npm run build` first) as a user would. */
export function prosec(args: readonly string[], cwd = repositoryRoot, env: Readonly<Record<string, string>> = {}): CliResult {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
