/**
 * A remote program and the remote programs it `use`s in turn, fetched or taken from what is already
 * pinned. A fetched program may only `use` registry references and URLs: a relative path inside it
 * would name a file next to a URL, which no lockfile entry can pin.
 */
import { sha256 } from "../project/imports.js";
import { fetchProgram, RegistryError, type FetchOptions } from "./fetch-program.js";
import type { LockedProgram } from "../project/lockfile.js";
import { isLocalUse, isRemoteUse, refKey, refUrl, useStrings } from "../references.js";

export interface ResolvedProgram extends LockedProgram {
  readonly key: string;
  readonly bytes: Buffer;
  /** Whether it came over the network now (else it was pinned and vendored already). */
  readonly fetched: boolean;
}

export interface ClosureOptions extends FetchOptions {
  /** A program already pinned and vendored intact, to keep instead of fetching it again. */
  readonly pinned?: (key: string) => ResolvedProgram | undefined;
  /** Told of each program as it arrives (the CLI says what was fetched from where). */
  readonly onFetched?: (program: ResolvedProgram) => void;
}

/** Every program `keys` lead to, by lockfile key; the named ones are always fetched. */
export async function resolveClosure(
  keys: readonly string[],
  options: ClosureOptions,
): Promise<Map<string, ResolvedProgram>> {
  const found = new Map<string, ResolvedProgram>();
  const named = new Set(keys.map(refKey));
  const queue = [...named];
  while (queue.length > 0) {
    const key = queue.shift()!;
    if (found.has(key)) continue;
    const kept = named.has(key) ? undefined : options.pinned?.(key);
    const program = kept ?? (await fetchResolved(key, refUrl(key, options.registry), options));
    if (!kept) options.onFetched?.(program);
    found.set(key, program);
    queue.push(...program.uses);
  }
  return found;
}

/** One program, fetched from `url` (its lockfile key is `key`). */
export async function fetchResolved(key: string, url: string, options: FetchOptions): Promise<ResolvedProgram> {
  const fetched = await fetchProgram(url, options);
  return {
    key,
    url: fetched.url,
    bytes: fetched.bytes,
    sha256: sha256(fetched.bytes),
    uses: remoteUses(key, fetched.text),
    fetched: true,
  };
}

/** The lockfile keys of the remote programs a fetched program uses, sorted. */
export function remoteUses(key: string, text: string): string[] {
  const uses = useStrings(text);
  const relative = uses.find(isLocalUse);
  if (relative !== undefined)
    throw new RegistryError(
      `${key} uses "${relative}": a fetched program can only use registry references and URLs, not relative paths`,
    );
  return [...new Set(uses.filter(isRemoteUse).map(refKey))].sort();
}
