/**
 * What `prosec init`'s next steps install prosec from, so that the project stands alone: a project
 * set up by a prosec installed elsewhere (globally, or in another project's node_modules) must not
 * depend on that install's folder, which `npm install <folder>` would link to (a symbolic link into
 * someone else's node_modules, gone when they uninstall). An installed copy is installed again from
 * where its project's lockfile says it came from: the tarball, while it is still there, or the
 * registry. With no such record (a global install keeps none) it is packed into the project with
 * `npm pack`, which makes the very tarball it was installed from: a registry name it may not have
 * come from would fail (prosec is not on the registry yet), or install whoever holds that name. A
 * checkout, or a tarball unpacked by hand, is installed from its folder (a link, as developers of
 * prosec want).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** How a project gets this prosec: `npm install <install>`, after `npm pack <pack>` when there is one. */
export interface ProsecSource {
  readonly pack?: string;
  readonly install: string;
}

/** Where `project` gets this prosec from; undefined when it has it already. */
export function prosecSource(project: string, prosecRoot: string): ProsecSource | undefined {
  const fromProject = relative(project, prosecRoot);
  if (fromProject.split(sep)[0] === "node_modules") return undefined;
  if (basename(prosecRoot) !== "prosec" || basename(dirname(prosecRoot)) !== "node_modules")
    return {
      install:
        fromProject.split(sep).filter((part) => part === "..").length > 2 || isAbsolute(fromProject)
          ? prosecRoot
          : fromProject.startsWith(".")
            ? fromProject
            : `./${fromProject}`,
    };
  const version = (JSON.parse(readFileSync(resolve(prosecRoot, "package.json"), "utf8")) as { version: string })
    .version;
  const resolved = recordedSource(prosecRoot);
  if (resolved !== undefined && /^https?:\/\//.test(resolved)) return { install: `prosec@${version}` };
  const tarball = resolved === undefined ? undefined : tarballOf(resolved, prosecRoot);
  return tarball !== undefined ? { install: tarball } : { pack: prosecRoot, install: `./prosec-${version}.tgz` };
}

/**
 * Where an installed copy came from, by npm's record of its project's install
 * (`node_modules/.package-lock.json`): `"resolved": "file:../prosec-0.2.0.tgz"` or a registry URL.
 */
function recordedSource(prosecRoot: string): string | undefined {
  const record = resolve(dirname(prosecRoot), ".package-lock.json");
  if (!existsSync(record)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(record, "utf8")) as {
      packages?: Record<string, { resolved?: unknown }>;
    };
    const resolved = lock.packages?.["node_modules/prosec"]?.resolved;
    return typeof resolved === "string" ? resolved : undefined;
  } catch {
    return undefined;
  }
}

/** The tarball a `file:` record names (relative to the project that installed it), while it is there. */
function tarballOf(resolved: string, prosecRoot: string): string | undefined {
  if (!resolved.startsWith("file:") || !/\.(?:tgz|tar\.gz)$/.test(resolved)) return undefined;
  const tarball = resolve(dirname(dirname(prosecRoot)), resolved.slice("file:".length));
  return existsSync(tarball) ? tarball : undefined;
}
