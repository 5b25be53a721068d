import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates a folder and its missing parents, one level at a time. Node's `mkdirSync(path, { recursive:
 * true })` never returns for a path under a pseudo file system such as `/proc` (it retries the ENOENT
 * forever); creating each level on its own fails at once with that ENOENT instead.
 */
export function makeDirectory(path: string): void {
  if (isDirectory(path)) return;
  const parent = dirname(path);
  if (parent !== path) makeDirectory(parent);
  try {
    mkdirSync(path);
  } catch (error) {
    if (!isDirectory(path)) throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
