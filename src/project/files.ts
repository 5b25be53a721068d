import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { VENDOR_FOLDER } from "../references.js";

/**
 * The `.prose` files named by the arguments: files as given, folders searched recursively (skipping
 * node_modules, prose_modules and dot-folders), each list sorted so output order never depends on
 * the file system. Vendored programs in prose_modules are checked and built as their importers' imports.
 */
export function findPrograms(paths: readonly string[], cwd = process.cwd()): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    let stats;
    try {
      stats = statSync(absolute);
    } catch {
      throw new UsageError(`${path}: no such file or folder`);
    }
    if (stats.isDirectory()) {
      const programs = programsUnder(absolute);
      if (programs.length === 0) throw new UsageError(`${path}: no .prose files in this folder`);
      programs.forEach((program) => found.add(program));
    } else {
      found.add(absolute);
    }
  }
  return [...found].map((file) => displayPath(file, cwd));
}

/** The `.prose` files under a folder, recursively, in sorted order (absolute paths). */
export function programsUnder(directory: string): string[] {
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return entries.flatMap((entry) => {
    if (entry.name.startsWith(".") || entry.name === "node_modules" || entry.name === VENDOR_FOLDER) return [];
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return programsUnder(path);
    return entry.isFile() && entry.name.endsWith(".prose") ? [path] : [];
  });
}

/** A path relative to the working directory with `/` separators, as diagnostics show it. */
export function displayPath(file: string, cwd = process.cwd()): string {
  const path = relative(cwd, file) || file;
  return sep === "/" ? path : path.split(sep).join("/");
}
