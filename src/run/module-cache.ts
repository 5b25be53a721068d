/**
 * The compiled-module cache of `prosec run`, under the project's `.prose/cache/`: a run of a program
 * that is unchanged since it was last compiled loads its JavaScript from disk and never loads the
 * compiler (parser, analyzer, lowering, sucrase: about half of a one-session run's start-up).
 *
 * - `modules/<hash>.mjs`: one module's JavaScript, named by the hash of its text (so a module imports
 *   the programs it calls by names that say what they hold, and two programs share what they share).
 * - `programs/<key>.json`: what running one program needs: its module, the hash of every program in
 *   its closure (it and every program it `use`s, transitively) and their diagnostics (warnings are
 *   printed on every run). The key hashes prosec's version and build, the runtime it imports, the
 *   options that change the output (`--strict`), the program's path and text, and the project's
 *   `prose.lock` (which says what a remote `use` resolves to). An entry is used only when every
 *   program of its closure still hashes as recorded; anything else is a miss and compiles.
 *
 * The cache is an optimisation: a folder that cannot be written (read-only, full) or an entry that
 * cannot be read is a miss, never an error.
 *
 * Its modules are JavaScript that `prosec run` imports, so only files this machine's prosec wrote are
 * trusted, never ones that arrived with the project (a commit or an archive holding `.prose/cache/`,
 * under the very names prosec would give them): an entry records each module's identity on disk
 * (device, inode, change time, size), which a file checked out or unpacked here cannot have, so such
 * an entry is a miss; and a module file found under the name prosec would write is used only when it
 * holds exactly the JavaScript prosec compiled, else it is written again.
 */
import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeDirectory } from "../../runtime/stored-runs.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { findProjectRoot, LOCKFILE } from "../project/lockfile.js";
import { compilerVersion } from "../version.js";

const FORMAT = 2;
/** What the cache is keyed on besides the program: a rebuilt prosec (same version, new dist/) is another compiler. */
const buildStamp = stampOf(fileURLToPath(import.meta.url));

export interface CachedFile {
  /** Absolute path. */
  readonly path: string;
  readonly sha256: string;
  readonly diagnostics: readonly Diagnostic[];
}

interface Entry {
  readonly format: number;
  /** The program first, then those it imports. */
  readonly files: readonly CachedFile[];
  /** The program's module, a file name in `modules/`. */
  readonly module: string;
  /** Every module it imports, its own included: file name in `modules/` → its identity on disk. */
  readonly modules: Readonly<Record<string, string>>;
  readonly codeHash: string;
}

/** A module file's name: the hash of its JavaScript (never a path). */
const MODULE_NAME = /^[0-9a-f]{32}\.mjs$/;

export interface CacheHit {
  readonly files: readonly (CachedFile & { readonly source: string })[];
  readonly moduleUrl: string;
  readonly codeHash: string;
}

export class ModuleCache {
  readonly #folder: string;

  /** The cache of the project at `cwd` (its `.prose/cache/`). */
  constructor(cwd: string) {
    this.#folder = resolve(cwd, ".prose", "cache");
  }

  /** The key of `program` (absolute path) compiled with these options, or undefined when it cannot be read as text. */
  keyOf(
    program: string,
    options: {
      readonly strict: boolean;
      readonly scoreAsserts: boolean;
      readonly tools: string;
      readonly runtimeUrl: string;
    },
  ): string | undefined {
    const bytes = readText(program);
    if (bytes === undefined) return undefined;
    const root = findProjectRoot(dirname(program));
    const lockfile = root === undefined ? "" : (readText(join(root, LOCKFILE))?.toString("utf8") ?? "");
    return sha256(
      JSON.stringify([
        FORMAT,
        compilerVersion,
        buildStamp,
        options.runtimeUrl,
        options.strict,
        options.scoreAsserts,
        options.tools,
        program,
        lockfile,
      ]),
      bytes,
    );
  }

  /** The entry at `key` when every program it was compiled from is unchanged. */
  read(key: string): CacheHit | undefined {
    let entry: Entry;
    try {
      entry = JSON.parse(readFileSync(join(this.#folder, "programs", `${key}.json`), "utf8")) as Entry;
    } catch {
      return undefined;
    }
    if (entry.format !== FORMAT || !Array.isArray(entry.files)) return undefined;
    const files = [];
    for (const file of entry.files) {
      const bytes = readText(file.path);
      if (bytes === undefined || sha256(bytes) !== file.sha256) return undefined;
      files.push({ ...file, source: bytes.toString("utf8") });
    }
    const modules = Object.entries(entry.modules ?? {});
    if (!modules.some(([name]) => name === entry.module)) return undefined;
    for (const [name, identity] of modules)
      if (!MODULE_NAME.test(name) || identityOf(join(this.#folder, "modules", name)) !== identity) return undefined;
    return {
      files,
      moduleUrl: pathToFileURL(join(this.#folder, "modules", entry.module)).href,
      codeHash: entry.codeHash,
    };
  }

  /** Stores one module's JavaScript; its URL, or undefined when the cache cannot be written. */
  placeModule(javascript: string): string | undefined {
    const path = join(this.#folder, "modules", `${sha256(javascript).slice(0, 32)}.mjs`);
    // A file of that name is used only when it holds this very JavaScript.
    if (readText(path)?.toString("utf8") !== javascript && !writeAtomically(path, javascript)) return undefined;
    return pathToFileURL(path).href;
  }

  /** Records what `key` compiled to; `moduleUrl` and `moduleUrls` (every module it imports) are ones `placeModule` returned. */
  write(
    key: string,
    files: readonly { path: string; source: string; diagnostics: readonly Diagnostic[] }[],
    moduleUrl: string,
    moduleUrls: readonly string[],
    codeHash: string,
  ): void {
    const modules: Record<string, string> = {};
    for (const url of moduleUrls) {
      const path = fileURLToPath(url);
      const identity = identityOf(path);
      if (identity === undefined) return;
      modules[basename(path)] = identity;
    }
    const entry: Entry = {
      format: FORMAT,
      files: files.map((file) => ({
        path: file.path,
        sha256: sha256(Buffer.from(file.source, "utf8")),
        diagnostics: file.diagnostics,
      })),
      module: basename(fileURLToPath(moduleUrl)),
      modules,
      codeHash,
    };
    writeAtomically(join(this.#folder, "programs", `${key}.json`), JSON.stringify(entry));
  }
}

/** A file's bytes when they are UTF-8 text without NUL (what the compiler reads as a program), else undefined. */
function readText(path: string): Buffer | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const bytes = readFileSync(path);
    return isUtf8(bytes) && !bytes.includes(0) ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** A file's identity on disk: a copy, a checkout or an unpacked archive of it has another. */
function identityOf(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return stats.isFile() ? `${stats.dev}:${stats.ino}:${stats.ctimeNs}:${stats.size}` : undefined;
  } catch {
    return undefined;
  }
}

function stampOf(path: string): string {
  try {
    const stats = statSync(path);
    return `${stats.mtimeMs}:${stats.size}`;
  } catch {
    return "";
  }
}

function sha256(...parts: (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex");
}

/** Writes through a temporary file and a rename, so a concurrent run reads the old file or the whole new one. */
function writeAtomically(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    makeDirectory(dirname(path));
    writeFileSync(temporary, content, "utf8");
    renameSync(temporary, path);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Under a path that is not a folder there is nothing to remove.
    }
    return false;
  }
}
