/**
 * What `prosec init`'s next steps install prosec from, so that the project stands alone: a project
 * set up by a prosec installed elsewhere (globally, or in another project's node_modules) must not
 * depend on that install's folder, which `npm install <folder>` would link to (a symbolic link into
 * someone else's node_modules, gone when they uninstall). An installed copy is installed again by
 * name and version from the registry, or from the tarball it came from when its project's lockfile
 * says so and the tarball is still there. A checkout, or a tarball unpacked by hand, is installed
 * from its folder (a link, as developers of prosec want).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** The argument of `npm install` that gives `project` this prosec; undefined when it has it already. */
export function prosecSource(project: string, prosecRoot: string): string | undefined {
  const fromProject = relative(project, prosecRoot);
  if (fromProject.split(sep)[0] === "node_modules") return undefined;
  if (basename(prosecRoot) !== "prosec" || basename(dirname(prosecRoot)) !== "node_modules")
    return fromProject.split(sep).filter((part) => part === "..").length > 2 || isAbsolute(fromProject)
      ? prosecRoot
      : fromProject.startsWith(".")
        ? fromProject
        : `./${fromProject}`;
  const version = (JSON.parse(readFileSync(resolve(prosecRoot, "package.json"), "utf8")) as { version: string })
    .version;
  return installedTarball(prosecRoot) ?? `prosec@${version}`;
}

/**
 * The tarball an installed copy came from, from npm's record of its project's install
 * (`node_modules/.package-lock.json`): `"resolved": "file:../prosec-0.2.0.tgz"`, relative to that project.
 */
function installedTarball(prosecRoot: string): string | undefined {
  const modules = dirname(prosecRoot);
  const record = resolve(modules, ".package-lock.json");
  if (!existsSync(record)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(record, "utf8")) as {
      packages?: Record<string, { resolved?: unknown }>;
    };
    const resolved = lock.packages?.["node_modules/prosec"]?.resolved;
    if (typeof resolved !== "string" || !resolved.startsWith("file:") || !/\.(?:tgz|tar\.gz)$/.test(resolved))
      return undefined;
    const tarball = resolve(dirname(modules), resolved.slice("file:".length));
    return existsSync(tarball) ? tarball : undefined;
  } catch {
    return undefined;
  }
}
