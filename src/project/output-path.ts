import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Where a program's module goes. Without `outDir`: `foo.prose` → `foo.prose.ts` next to it. With
 * `outDir`: the tree under the program's root (the folder named on the command line, or the
 * file's own folder when the file was named) is mirrored: `prosec build examples --out-dir gen`
 * writes `examples/a/b.prose` to `gen/a/b.prose.ts`.
 */
export function outputPath(file: string, root: string, outDir: string | undefined): string {
  if (outDir === undefined) return `${file}.ts`;
  return join(resolve(outDir), `${relative(root, file)}.ts`);
}

/** The root a named path gives its programs: the folder itself, or a file's folder. */
export function rootOf(path: string, isDirectory: boolean): string {
  return isDirectory ? resolve(path) : dirname(resolve(path));
}

/** `path` relative to `from`, `/`-separated: the form written into modules and shown to users. */
export function portable(path: string, from: string): string {
  const relativePath = relative(from, path) || path;
  return sep === "/" ? relativePath : relativePath.split(sep).join("/");
}
