import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));
/** The CLI's entry point, as a test starts it. */
export const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI (`npm run build` first) as a user would. */
export function prosec(
  args: readonly string[],
  cwd = repositoryRoot,
  env: Readonly<Record<string, string>> = {},
): CliResult {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface StartedCli {
  readonly child: ChildProcess;
  readonly exit: Promise<CliResult>;
}

/**
 * Starts the built CLI without blocking this process, for tests whose fake servers run in it; `env`
 * is added to this process's environment.
 */
export function startProsec(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): StartedCli {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
  return { child, exit };
}
