/**
 * `prosec run alice/research`: the program and what it uses, fetched into a per-user cache
 * (`$XDG_CACHE_HOME/prosec`, else `~/.cache/prosec`). Each fetch is stored as a small project of its
 * own (`programs/<sha256>/prose.lock` + `prose_modules/`), keyed by the SHA-256 of that lockfile, so
 * the program's own `use`s resolve through a lockfile like any other; `refs.json` maps a reference
 * to its latest entry for `--offline`. An entry holds an `approved` mark once the user let it run.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomically } from "../../runtime/stored-runs.js";
import { sha256 } from "../project/imports.js";
import { resolveClosure, type ResolvedProgram } from "./closure.js";
import { RegistryError } from "./fetch-program.js";
import { lockfileText, readLockfile, type Lockfile } from "../project/lockfile.js";
import { refKey, VENDOR_FOLDER, vendoredPath } from "../references.js";
import { hostsOf } from "./trusted-hosts.js";
import { writeVendored } from "./vendor.js";

export interface CachedProgram {
  readonly key: string;
  /** The program's vendored copy in the cache entry. */
  readonly file: string;
  /** The cache entry: a folder holding prose.lock and prose_modules/. */
  readonly entry: string;
  /** The lockfile's programs (the one named and what it uses). */
  readonly lockfile: Lockfile;
  /** Whether the user has let this very entry run before. */
  readonly approved: boolean;
}

export interface CacheOptions {
  readonly registry: string;
  readonly token?: string;
  readonly tokenWithheld?: string;
  /** Hosts the user named (`PROSEC_REGISTRY`, `PROSEC_TRUSTED_HOSTS`); a URL `ref` is trusted too. */
  readonly trustedHosts?: readonly string[];
  /** Use what the cache holds; never the network. */
  readonly offline: boolean;
  readonly onFetched?: (program: ResolvedProgram) => void;
}

export function cacheFolder(): string {
  const base = process.env["XDG_CACHE_HOME"] || join(homedir(), ".cache");
  return join(base, "prosec");
}

export async function cachedProgram(ref: string, options: CacheOptions): Promise<CachedProgram> {
  const key = refKey(ref);
  const cache = cacheFolder();
  const index = readIndex(cache);
  let hash = index[key];
  if (options.offline) {
    if (hash === undefined || !existsSync(join(cache, "programs", hash)))
      throw new RegistryError(`${key} is not in the cache (${cache}): run it once without --offline to fetch it`);
  } else {
    const trustedHosts = [...(options.trustedHosts ?? []), ...hostsOf([key])];
    const programs = await resolveClosure([key], { ...options, trustedHosts, pinned: undefined });
    const lockfile: Lockfile = {
      lockfileVersion: 1,
      registry: options.registry,
      programs: Object.fromEntries(
        [...programs.values()].map((program) => [
          program.key,
          { url: program.url, sha256: program.sha256, uses: program.uses },
        ]),
      ),
    };
    hash = sha256(lockfileText(lockfile));
    storeEntry(join(cache, "programs"), hash, lockfile, programs.values());
    writeFileAtomically(join(cache, "refs.json"), `${JSON.stringify({ ...index, [key]: hash }, null, 2)}\n`);
  }
  const entry = join(cache, "programs", hash);
  const lockfile = intactEntry(entry);
  if (lockfile === undefined)
    throw new RegistryError(
      `the cached copy of ${key} (${entry}) is damaged: run it without --offline to fetch it again`,
    );
  return {
    key,
    file: join(entry, VENDOR_FOLDER, vendoredPath(key)),
    entry,
    lockfile,
    approved: existsSync(join(entry, "approved")),
  };
}

/** Marks a cache entry as one the user let run. */
export function approve(program: CachedProgram): void {
  writeFileSync(join(program.entry, "approved"), "");
}

/** Writes the entry under a temporary name and renames it into place (an entry is never half written). */
function storeEntry(folder: string, hash: string, lockfile: Lockfile, programs: Iterable<ResolvedProgram>): void {
  const entry = join(folder, hash);
  if (intactEntry(entry) !== undefined) return;
  const staging = join(folder, `.${hash}.${process.pid}.new`);
  rmSync(staging, { recursive: true, force: true });
  writeVendored(staging, lockfile, programs);
  try {
    rmSync(entry, { recursive: true, force: true });
    renameSync(staging, entry);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The entry's lockfile, when every program in it is there with the hash it records. */
function intactEntry(entry: string): Lockfile | undefined {
  try {
    const lockfile = readLockfile(entry);
    const intact = Object.entries(lockfile.programs).every(
      ([key, program]) => sha256(readFileSync(join(entry, VENDOR_FOLDER, vendoredPath(key)))) === program.sha256,
    );
    return intact && existsSync(join(entry, "prose.lock")) ? lockfile : undefined;
  } catch {
    return undefined;
  }
}

function readIndex(cache: string): Record<string, string> {
  try {
    const index: unknown = JSON.parse(readFileSync(join(cache, "refs.json"), "utf8"));
    return typeof index === "object" && index !== null ? (index as Record<string, string>) : {};
  } catch {
    return {};
  }
}
