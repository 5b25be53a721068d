/**
 * `prosec run` imports the JavaScript in the project's `.prose/cache/`. A project that arrives with a
 * `.prose/cache/` (a commit, an archive) must not get its JavaScript run in place of the program's:
 * a module planted under the very name prosec would give the compiled program, or a whole cache
 * copied in with its entries, is not imported. Runs the built loader (dist/) in child processes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/temp.js";

const loader = pathToFileURL(join(__dirname, "../../dist/src/run/load-program.js")).href;

/** Loads and runs main.prose in a child process, with the cache. */
function runInChild(cwd: string): { outputs: unknown; cached: boolean } {
  const script = `
    const { loadProgram } = await import(${JSON.stringify(loader)});
    const loaded = await loadProgram("main.prose", { cwd: ${JSON.stringify(cwd)}, cache: true });
    const outputs = await loaded.module.run({}, { apiKey: "sk-ant-none" });
    console.log(JSON.stringify({ outputs, cached: loaded.cached }));
  `;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" }));
}

/** Every file under `folder`, recursively. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());
}

/** A project whose main.prose uses helper.prose, run once so its cache holds both modules. */
function projectWithCache(): { cwd: string; marker: string; modules: string } {
  const cwd = temporaryFolder("prosec-planted-cache-");
  writeFileSync(join(cwd, "helper.prose"), 'input topic: "A topic"\n\noutput summary = "About " + topic\n');
  writeFileSync(
    join(cwd, "main.prose"),
    'use "./helper" as helper\n\noutput digest = helper(topic: "moons").summary\n',
  );
  expect(runInChild(cwd)).toEqual({ outputs: { digest: "About moons" }, cached: false });
  return { cwd, marker: join(cwd, "planted-code-ran"), modules: join(cwd, ".prose", "cache", "modules") };
}

/** The module with code of an attacker's in front, written as a new file (as a checkout writes it). */
function plant(path: string, marker: string): void {
  const javascript = readFileSync(path, "utf8");
  rmSync(path);
  writeFileSync(
    path,
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "");\n${javascript}`,
  );
}

describe("a .prose/cache/ that came with the project", () => {
  it("cannot run a module planted under the name prosec gives the compiled program", () => {
    const { cwd, marker, modules } = projectWithCache();
    // As if the project arrived with these modules and no entry: the names are what prosec computes.
    rmSync(join(cwd, ".prose", "cache", "programs"), { recursive: true });
    for (const module of filesUnder(modules)) plant(module, marker);
    expect(runInChild(cwd)).toEqual({ outputs: { digest: "About moons" }, cached: false });
    expect(existsSync(marker)).toBe(false);
    expect(runInChild(cwd)).toEqual({ outputs: { digest: "About moons" }, cached: true });
    expect(existsSync(marker)).toBe(false);
  });

  it("cannot run its modules through entries that came with it", () => {
    const { cwd, marker, modules } = projectWithCache();
    // The whole cache as a checkout or an archive brings it: the entries as written, every file new.
    for (const file of filesUnder(join(cwd, ".prose", "cache"))) {
      if (file.startsWith(modules)) plant(file, marker);
      else {
        const bytes = readFileSync(file);
        rmSync(file);
        writeFileSync(file, bytes);
      }
    }
    expect(runInChild(cwd)).toEqual({ outputs: { digest: "About moons" }, cached: false });
    expect(existsSync(marker)).toBe(false);
  });
});
