/**
 * `prosec build --watch` as a user runs it: a child process, files edited under it. It rebuilds what
 * changed and what `use`s it, one line per rebuild; a syntax error prints diagnostics and the watch
 * goes on; Ctrl-C (SIGINT) or SIGTERM ends it with exit 0.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));
/** Generous: a rebuild takes well under a second, but this machine is shared. */
const LINE_TIMEOUT_MS = 45_000;

interface Watch {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the first stdout line (from those not yet seen) that matches. */
  line(pattern: RegExp): Promise<string>;
  /** Everything printed since the last `line` match. */
  readonly since: () => string;
  readonly exit: Promise<number | null>;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function watch(cwd: string, args: readonly string[]): Watch {
  const child = spawn(process.execPath, [bin, "build", "--watch", ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
  });
  children.push(child);
  let output = "";
  let seen = 0;
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const line = async (pattern: RegExp): Promise<string> => {
    for (;;) {
      const lines = output.slice(seen).split("\n");
      let offset = seen;
      // Only whole lines count: the last element is a line still being written.
      for (const candidate of lines.slice(0, -1)) {
        offset += candidate.length + 1;
        if (pattern.test(candidate)) {
          const before = output.slice(seen, offset);
          seen = offset;
          lastSince = before;
          return candidate;
        }
      }
      if (child.exitCode !== null)
        throw new Error(`prosec exited (${child.exitCode}) before printing ${pattern}:\n${output}`);
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), LINE_TIMEOUT_MS);
        waiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!woken)
        throw new Error(`no line matching ${pattern} within ${LINE_TIMEOUT_MS / 1000} s; prosec printed:\n${output}`);
    }
  };
  let lastSince = "";
  return { child, line, since: () => lastSince, exit };
}

describe("prosec build --watch", () => {
  it(
    "rebuilds the changed program and the programs that use it, survives a syntax error, and exits 0 on Ctrl-C",
    { timeout: 180_000 },
    async () => {
      const project = temporaryFolder("prosec-watch-");
      writeFileSync(
        join(project, "lib.prose"),
        'input topic: "A topic"\noutput summary = session "Summarise {topic}"\n',
      );
      writeFileSync(
        join(project, "main.prose"),
        'use "./lib.prose" as lib\nlet found = lib(topic: "tides")\noutput report = session "Report on {found.summary}"\n',
      );
      writeFileSync(join(project, "other.prose"), 'session "Unrelated"\n');

      const watcher = watch(project, ["."]);
      expect(await watcher.line(/^watching/)).toBe("watching 3 programs for changes (Ctrl-C to stop)");
      expect(watcher.since()).toContain("3 programs: 3 written, 0 unchanged");
      const untouched = readFileSync(join(project, "other.prose.ts"), "utf8");

      writeFileSync(
        join(project, "lib.prose"),
        'input topic: "A topic"\noutput summary = session "Summarise {topic} in one line"\n',
      );
      expect(await watcher.line(/changed →/)).toBe("lib.prose changed → 3 programs: 2 written, 1 unchanged");
      expect(readFileSync(join(project, "lib.prose.ts"), "utf8")).toContain("in one line");
      expect(readFileSync(join(project, "other.prose.ts"), "utf8")).toBe(untouched);

      writeFileSync(join(project, "other.prose"), 'session "Unrelated\n');
      expect(await watcher.line(/changed →/)).toBe(
        "other.prose changed → 3 programs: 0 written, 2 unchanged, 1 error, 0 warnings, nothing written",
      );
      expect(watcher.since()).toMatch(/^other\.prose:1:9 error E001 /m);
      expect(readFileSync(join(project, "other.prose.ts"), "utf8")).toBe(untouched);

      writeFileSync(join(project, "other.prose"), 'session "Unrelated, fixed"\n');
      expect(await watcher.line(/changed →/)).toBe("other.prose changed → 3 programs: 1 written, 2 unchanged");
      expect(readFileSync(join(project, "other.prose.ts"), "utf8")).toContain("Unrelated, fixed");

      // A new program in a watched folder is picked up.
      writeFileSync(join(project, "new.prose"), 'session "New"\n');
      expect(await watcher.line(/changed →/)).toBe("new.prose changed → 4 programs: 1 written, 3 unchanged");

      watcher.child.kill("SIGINT");
      expect(await watcher.exit).toBe(EXIT.ok);
    },
  );

  it("a deleted program's module is removed from the watched folder", { timeout: 90_000 }, async () => {
    const project = temporaryFolder("prosec-watch-");
    writeFileSync(join(project, "a.prose"), 'session "A"\n');
    writeFileSync(join(project, "b.prose"), 'session "B"\n');
    const watcher = watch(project, ["."]);
    await watcher.line(/^watching 2 programs/);
    expect(existsSync(join(project, "b.prose.ts"))).toBe(true);
    rmSync(join(project, "b.prose"));
    expect(await watcher.line(/changed →/)).toBe("b.prose changed → 1 program: 0 written, 1 unchanged, 1 removed");
    expect(watcher.since()).toContain("removed: b.prose.ts (its program is gone)");
    expect(existsSync(join(project, "b.prose.ts"))).toBe(false);
    expect(existsSync(join(project, "a.prose.ts"))).toBe(true);
    watcher.child.kill("SIGINT");
    expect(await watcher.exit).toBe(EXIT.ok);
  });

  it("SIGTERM ends it with exit 0 too", { timeout: 90_000 }, async () => {
    const project = temporaryFolder("prosec-watch-");
    writeFileSync(join(project, "a.prose"), 'session "A"\n');
    const watcher = watch(project, ["a.prose"]);
    await watcher.line(/^watching 1 program for changes/);
    watcher.child.kill("SIGTERM");
    expect(await watcher.exit).toBe(EXIT.ok);
  });
});
