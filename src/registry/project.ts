/**
 * The project's remote programs: `prosec add`, `install` and `update` over `prose.lock` and
 * `prose_modules/`. Everything is fetched before anything is written, and written by
 * `writeVendored`, so a failure leaves both as they were.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { sha256 } from "../project/imports.js";
import { programsUnder } from "../project/files.js";
import { fetchResolved, remoteUses, resolveClosure, type ResolvedProgram } from "./closure.js";
import { RegistryError } from "./fetch-program.js";
import { findProjectRoot, readLockfile, type Lockfile, type LockedProgram } from "../project/lockfile.js";
import { refKey, VENDOR_FOLDER, vendoredPath } from "../references.js";
import { registryToken } from "./registry-token.js";
import { hostsOf } from "./trusted-hosts.js";
import { writeVendored } from "./vendor.js";

export interface ProjectOptions {
  readonly cwd: string;
  /** `PROSEC_REGISTRY`: wins over the registry the lockfile records. */
  readonly registry?: string;
  readonly token?: string;
  /** `PROSEC_TRUSTED_HOSTS` (trusted-hosts.ts); `registry` and the URLs named to add or update are trusted too. */
  readonly trustedHosts?: readonly string[];
  readonly onFetched?: (program: ResolvedProgram) => void;
}

/** The folder holding `prose.lock`: the nearest one up from `cwd`, else `cwd` itself. */
export function projectRoot(cwd: string): string {
  return findProjectRoot(cwd) ?? cwd;
}

/** Fetches `refs` and what they use (what is pinned and intact stays), and records them. */
export async function addPrograms(refs: readonly string[], options: ProjectOptions): Promise<ResolvedProgram[]> {
  return refresh(refs.map(refKey), refs, options, (key, lockfile, root) => intact(root, key, lockfile.programs[key]));
}

/** Fetches `refs` (every locked program when none is named) and what they use again, and records them. */
export async function updatePrograms(refs: readonly string[], options: ProjectOptions): Promise<ResolvedProgram[]> {
  const root = projectRoot(options.cwd);
  const lockfile = readLockfile(root);
  const keys = refs.length === 0 ? Object.keys(lockfile.programs).sort() : refs.map(refKey);
  for (const key of keys)
    if (lockfile.programs[key] === undefined)
      throw new RegistryError(`${key} is not in prose.lock: add it with \`prosec add ${key}\``);
  return refresh(keys, refs, options, () => undefined);
}

/** `named`: what the command line named (its URLs are hosts the user chose; the lockfile's are not). */
async function refresh(
  keys: readonly string[],
  named: readonly string[],
  options: ProjectOptions,
  pinned: (key: string, lockfile: Lockfile, root: string) => ResolvedProgram | undefined,
): Promise<ResolvedProgram[]> {
  const root = projectRoot(options.cwd);
  const lockfile = readLockfile(root);
  const registry = options.registry || lockfile.registry;
  const programs = await resolveClosure(keys, {
    registry,
    ...tokenOptions(registry, options),
    // A URL named on the command line is a host the user chose; what the programs `use` is not.
    trustedHosts: trustedHosts(options, named),
    pinned: (key) => pinned(key, lockfile, root),
    onFetched: options.onFetched,
  });
  const entries = { ...lockfile.programs };
  for (const program of programs.values()) entries[program.key] = locked(program);
  writeVendored(root, { lockfileVersion: 1, registry, programs: entries }, programs.values());
  return [...programs.values()];
}

/** Restores every vendored copy that is missing or damaged from the lockfile's URLs; the hashes must still match. */
export async function installPrograms(options: ProjectOptions): Promise<ResolvedProgram[]> {
  const root = projectRoot(options.cwd);
  const lockfile = readLockfile(root);
  const registry = options.registry || lockfile.registry;
  const restored: ResolvedProgram[] = [];
  for (const [key, entry] of Object.entries(lockfile.programs).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (intact(root, key, entry)) continue;
    const program = await fetchResolved(key, entry.url, {
      registry,
      ...tokenOptions(registry, options),
      trustedHosts: trustedHosts(options, []),
    });
    if (program.sha256 !== entry.sha256)
      throw new RegistryError(
        `${entry.url} now serves another text than prose.lock pins for ${key} (sha256 ${program.sha256.slice(0, 12)}…, locked ${entry.sha256.slice(0, 12)}…): take it with \`prosec update ${key}\``,
      );
    options.onFetched?.(program);
    restored.push(program);
  }
  if (restored.length > 0) writeVendored(root, lockfile, restored);
  return restored;
}

/** What `install --check` finds wrong: vendored copies and lockfile that disagree (no network, nothing written). */
export function verifyInstalled(cwd: string): string[] {
  const root = projectRoot(cwd);
  const lockfile = readLockfile(root);
  const folder = join(root, VENDOR_FOLDER);
  const problems: string[] = [];
  const expected = new Set<string>();
  for (const [key, entry] of Object.entries(lockfile.programs).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(folder, vendoredPath(key));
    const shown = join(VENDOR_FOLDER, vendoredPath(key)).split(sep).join("/");
    expected.add(path);
    if (!existsSync(path)) {
      problems.push(`${key}: ${shown} is missing`);
      continue;
    }
    const bytes = readFileSync(path);
    if (sha256(bytes) !== entry.sha256) problems.push(`${key}: ${shown} differs from the SHA-256 in prose.lock`);
    let uses: string[] = [];
    try {
      uses = remoteUses(key, bytes.toString("utf8"));
    } catch (error) {
      problems.push((error as Error).message);
    }
    if (uses.join(" ") !== [...entry.uses].sort().join(" "))
      problems.push(
        `${key}: prose.lock records uses [${entry.uses.join(", ")}] but ${shown} uses [${uses.join(", ")}]`,
      );
    for (const use of uses)
      if (lockfile.programs[use] === undefined) problems.push(`${key} uses ${use}, which prose.lock does not record`);
  }
  if (existsSync(folder))
    for (const path of programsUnder(folder))
      if (!expected.has(path))
        problems.push(`${VENDOR_FOLDER}/${relative(folder, path).split(sep).join("/")} is not in prose.lock`);
  return problems;
}

/** The pinned program, when its vendored copy is there and hashes as the lockfile says. */
function intact(root: string, key: string, entry: LockedProgram | undefined): ResolvedProgram | undefined {
  if (entry === undefined) return undefined;
  const path = join(root, VENDOR_FOLDER, vendoredPath(key));
  if (!existsSync(path)) return undefined;
  const bytes = readFileSync(path);
  return sha256(bytes) === entry.sha256 ? { key, ...entry, bytes, fetched: false } : undefined;
}

function tokenOptions(registry: string, options: ProjectOptions): { token?: string; tokenWithheld?: string } {
  const { token, withheld } = registryToken(registry, options.registry, options.token);
  return { ...(token === undefined ? {} : { token }), ...(withheld === undefined ? {} : { tokenWithheld: withheld }) };
}

/** The hosts the user named: the setting, `PROSEC_REGISTRY` (never prose.lock's registry), the URLs in `named`. */
function trustedHosts(options: ProjectOptions, named: readonly string[]): string[] {
  return [...(options.trustedHosts ?? []), ...hostsOf([options.registry]), ...hostsOf(named)];
}

function locked(program: ResolvedProgram): LockedProgram {
  return { url: program.url, sha256: program.sha256, uses: program.uses };
}
