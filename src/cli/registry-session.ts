/**
 * What `add`, `install`, `update` and `run <ref>` share: the registry settings from the
 * environment, a line per program fetched, and the exit code of a registry failure.
 */
import { RegistryError } from "../registry/fetch-program.js";
import { LockfileError } from "../project/lockfile.js";
import type { ResolvedProgram } from "../registry/closure.js";
import { isRemoteUse } from "../references.js";
import { trustedHostsSetting } from "../registry/trusted-hosts.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { terminalText } from "../printable.js";
import { UsageError } from "../errors.js";

export interface RegistrySettings {
  readonly cwd: string;
  /** `PROSEC_REGISTRY`; else the registry prose.lock records, else https://p.prose.md. */
  readonly registry?: string;
  /** `PROSEC_REGISTRY_TOKEN`: sent to the registry only, never printed or written. */
  readonly token?: string;
  /** `PROSEC_TRUSTED_HOSTS`: hosts fetched over http and at private addresses though the user did not name them now. */
  readonly trustedHosts: readonly string[];
  readonly onFetched: (program: ResolvedProgram) => void;
}

export function registrySettings(): RegistrySettings {
  return {
    cwd: process.cwd(),
    registry: process.env["PROSEC_REGISTRY"] || undefined,
    token: process.env["PROSEC_REGISTRY_TOKEN"] || undefined,
    trustedHosts: trustedHostsSetting(process.env["PROSEC_TRUSTED_HOSTS"]),
    onFetched: (program) =>
      // The URL may come from a committed prose.lock: it prints no escape sequence.
      process.stderr.write(
        terminalText(`fetched ${program.key} from ${program.url} (sha256 ${program.sha256.slice(0, 12)}…)\n`),
      ),
  };
}

/** Refs as the command line gives them; anything else is a usage error. */
export function checkedRefs(refs: readonly string[]): readonly string[] {
  for (const ref of refs)
    if (!isRemoteUse(ref))
      throw new UsageError(`${ref}: not a registry reference (handle/slug, @handle/slug) or an http(s) URL`);
  return refs;
}

/** Runs a registry command; a registry or lockfile failure is one line on stderr and its exit code. */
export async function withRegistry(action: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await action();
  } catch (error) {
    const code = registryFailure(error);
    if (code === undefined) throw error;
    return code;
  }
}

/** For a registry failure (network) or an unreadable lockfile: says so in one line, and the exit code. */
export function registryFailure(error: unknown): ExitCode | undefined {
  if (!(error instanceof RegistryError) && !(error instanceof LockfileError)) return undefined;
  const coded = error instanceof LockfileError && error.code === "P042";
  process.stderr.write(
    coded ? `prosec: error ${error.code} ${error.message}\n  help: ${error.hint}\n` : `prosec: ${error.message}\n`,
  );
  return error instanceof RegistryError ? EXIT.network : EXIT.failed;
}

export function programCount(count: number): string {
  return `${count} ${count === 1 ? "program" : "programs"}`;
}
