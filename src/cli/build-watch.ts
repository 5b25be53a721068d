/**
 * `prosec build --watch`: a full build, then a rebuild whenever a `.prose` file changes, until Ctrl-C
 * or SIGTERM (exit 0). A rebuild goes through `build()`, whose input hashes make it compile only the
 * programs that changed and those that `use` one of them; a program with errors prints its
 * diagnostics, writes nothing (as `build` always does) and the watch goes on.
 *
 * Folders are watched, not files: editors save by replacing a file, and new programs appear in a
 * folder. The folders are those named, their subfolders, and those of every program built (a `use`d
 * program may live elsewhere); they are worked out again after each rebuild.
 */
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { build, type BuildOptions, type BuildResult } from "../project/build.js";
import { reportBuild } from "./build-report.js";
import { EXIT, type ExitCode } from "../exit-codes.js";
import { displayPath, findPrograms } from "../project/files.js";
import { UsageError } from "../errors.js";
import { EnvironmentError } from "../../runtime/host.js";

/** Editors write a file in several steps: wait for the burst to end. */
const SETTLE_MS = 60;

export async function watchBuild(paths: readonly string[], options: BuildOptions): Promise<ExitCode> {
  const cwd = options.cwd ?? process.cwd();
  // Named paths that do not exist are a usage error before watching starts, as for `build`.
  findPrograms(paths, cwd);
  const watchers = new Map<string, FSWatcher>();
  let sources = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let building: Promise<void> = Promise.resolve();
  // Once stopping, a rebuild still running finishes but opens no new watcher and schedules nothing.
  let stopping = false;

  const rebuild = async (first: boolean): Promise<void> => {
    const before = sources;
    sources = readSources(paths, [...before.keys()], cwd);
    const changed = first
      ? []
      : [...new Set([...before.keys(), ...sources.keys()])]
          .filter((file) => before.get(file) !== sources.get(file))
          .sort();
    if (!first && changed.length === 0) return;
    let result: BuildResult;
    try {
      result = await build(paths, { ...options, force: first && options.force === true });
    } catch (error) {
      // Not even a compiler bug ends the watch: the next save may well avoid it.
      const message =
        error instanceof UsageError
          ? error.message
          : error instanceof EnvironmentError
            ? error.reason
            : `internal error: ${error instanceof Error ? error.message : String(error)}`;
      process.stdout.write(`prosec: ${message} (still watching)\n`);
      follow(folders(paths, [...sources.keys()], cwd));
      return;
    }
    for (const program of result.programs)
      if (!sources.has(resolve(cwd, program.file))) sources.set(resolve(cwd, program.file), program.source);
    reportBuild(result, false, first ? "" : `${changed.map((file) => displayPath(file, cwd)).join(", ")} changed → `);
    follow(
      folders(
        paths,
        result.programs.map((program) => resolve(cwd, program.file)),
        cwd,
      ),
    );
    // Said once the folders are watched: a change saved after this line is seen.
    if (first)
      process.stdout.write(
        `watching ${result.programs.length} program${result.programs.length === 1 ? "" : "s"} for changes (Ctrl-C to stop)\n`,
      );
  };

  const schedule = (): void => {
    if (stopping) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      // A rejected chain would stop every later rebuild: report and go on.
      building = building
        .then(() => rebuild(false))
        .catch(
          (error: unknown) =>
            void process.stdout.write(
              `prosec: internal error: ${error instanceof Error ? error.message : String(error)} (still watching)\n`,
            ),
        );
    }, SETTLE_MS);
  };

  const follow = (wanted: ReadonlySet<string>): void => {
    if (stopping) return;
    for (const [folder, watcher] of watchers) {
      if (wanted.has(folder)) continue;
      watcher.close();
      watchers.delete(folder);
    }
    for (const folder of wanted) {
      if (watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, (_event, name) => {
          // Modules this build writes (and their temporary files) are not sources.
          if (name === null || (!name.endsWith(".ts") && !name.endsWith(".tmp"))) schedule();
        });
        watcher.on("error", () => {
          watcher.close();
          watchers.delete(folder);
          schedule();
        });
        watchers.set(folder, watcher);
      } catch (error) {
        // A folder removed meanwhile is worked out again at the next rebuild; anything else (no inotify
        // watches left) must be said, or the watch would silently never fire.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT")
          process.stdout.write(`prosec: cannot watch ${displayPath(folder, cwd)} (${code ?? String(error)})\n`);
      }
    }
  };

  // Listening before the first build: a Ctrl-C during it ends the watch cleanly too.
  const stopped = new Promise<void>((stop) => {
    const end = (): void => {
      process.off("SIGINT", end);
      process.off("SIGTERM", end);
      stop();
    };
    process.on("SIGINT", end);
    process.on("SIGTERM", end);
  });
  await rebuild(true);
  await stopped;
  stopping = true;
  if (timer !== undefined) clearTimeout(timer);
  for (const watcher of watchers.values()) watcher.close();
  await building;
  return EXIT.ok;
}

/** The text of every program named or built so far, by absolute path (a removed one is left out). */
function readSources(paths: readonly string[], known: readonly string[], cwd: string): Map<string, string> {
  let named: string[];
  try {
    named = findPrograms(paths, cwd).map((file) => resolve(cwd, file));
  } catch {
    named = [];
  }
  const sources = new Map<string, string>();
  for (const file of [...named, ...known]) {
    if (sources.has(file)) continue;
    try {
      sources.set(file, readFileSync(file, "utf8"));
    } catch {
      // Gone: it counts as changed, and the build says what is missing.
    }
  }
  return sources;
}

/** The named folders with their subfolders, and the folder of every program built. */
function folders(paths: readonly string[], programs: readonly string[], cwd: string): Set<string> {
  const found = new Set<string>();
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    if (isFolder(absolute)) addTree(absolute, found);
    else found.add(dirname(absolute));
  }
  for (const program of programs) found.add(dirname(program));
  return found;
}

function addTree(folder: string, found: Set<string>): void {
  found.add(folder);
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules")
      addTree(join(folder, entry.name), found);
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
