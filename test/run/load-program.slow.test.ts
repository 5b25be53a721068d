/**
 * What `prosec run` loads: types stripped without the TypeScript compiler, imports pointed at the
 * runtime and at the programs a program uses, a program's own text left as written. Runs in a child
 * process, so that what is loaded is the loader's doing alone.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../support/temp.js";

const loader = pathToFileURL(join(__dirname, "../../dist/src/run/load-program.js")).href;

describe("loadProgram (prosec run)", () => {
  it("runs a program that uses another without loading the TypeScript compiler, leaving import-like lines of its text alone", () => {
    const cwd = temporaryFolder("prosec-load-");
    writeFileSync(join(cwd, "helper.prose"), 'input topic: "A topic"\n\noutput summary = "About " + topic\n');
    // A line of the program's text (kept in the module's `text`) that reads like an import of a used program.
    writeFileSync(
      join(cwd, "main.prose"),
      '# import * as helper from "./helper.prose.js";\nuse "./helper" as helper\n\nlet first = helper(topic: "moons")\noutput digest = "Digest: " + first.summary\n',
    );
    const script = `
      import { createRequire } from "node:module";
      const { loadProgram } = await import(${JSON.stringify(loader)});
      const loaded = await loadProgram("main.prose", { cwd: ${JSON.stringify(cwd)} });
      const outputs = await loaded.module.run({}, { apiKey: "sk-ant-none" });
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ outputs, text: loaded.module.default.text.split("\\n")[0], typescript: cache.filter((path) => /[\\\\/](typescript|ts-morph)[\\\\/]/.test(path)) }));
    `;
    const result = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" }),
    ) as { outputs: unknown; text: string; typescript: string[] };
    expect(result.outputs).toEqual({ digest: "Digest: About moons" });
    expect(result.text).toBe('# import * as helper from "./helper.prose.js";');
    expect(result.typescript).toEqual([]);
  });
});

describe("the module cache (prosec run)", () => {
  /** Loads and runs main.prose in a child process; what it printed, and whether the compiler was loaded. */
  function loadInChild(cwd: string): { outputs: unknown; cached: boolean; compiler: string[]; warnings: string[] } {
    const script = `
      import { createRequire } from "node:module";
      const { loadProgram } = await import(${JSON.stringify(loader)});
      const loaded = await loadProgram("main.prose", { cwd: ${JSON.stringify(cwd)}, cache: true });
      const outputs = await loaded.module.run({}, { apiKey: "sk-ant-none" });
      const cache = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({
        outputs,
        cached: loaded.cached,
        compiler: cache.filter((path) => /[\\\\/](sucrase|nearley|moo)[\\\\/]/.test(path)),
        warnings: loaded.files.flatMap((file) => file.diagnostics.map((d) => file.file + ":" + d.code)),
      }));
    `;
    return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" }));
  }

  it("loads an unchanged program and what it uses without the compiler, and compiles again when a used program changes", () => {
    const cwd = temporaryFolder("prosec-module-cache-");
    writeFileSync(join(cwd, "helper.prose"), 'input topic: "A topic"\n\noutput summary = "About " + topic\n');
    writeFileSync(
      join(cwd, "main.prose"),
      'use "./helper" as helper\n\nlet first = helper(topic: "moons")\noutput digest = "Digest: " + first.summary\n',
    );
    const cold = loadInChild(cwd);
    expect(cold).toMatchObject({ outputs: { digest: "Digest: About moons" }, cached: false });
    expect(cold.compiler.length).toBeGreaterThan(0);

    const warm = loadInChild(cwd);
    expect(warm).toEqual({ ...cold, cached: true, compiler: [] });

    // The used program changes, the program does not: its entry no longer matches.
    writeFileSync(join(cwd, "helper.prose"), 'input topic: "A topic"\n\noutput summary = "On " + topic\n');
    expect(loadInChild(cwd)).toMatchObject({ outputs: { digest: "Digest: On moons" }, cached: false });
    expect(loadInChild(cwd)).toMatchObject({ outputs: { digest: "Digest: On moons" }, cached: true });

    // Back to the first helper: the program's entry now records the second one, so it compiles again.
    writeFileSync(join(cwd, "helper.prose"), 'input topic: "A topic"\n\noutput summary = "About " + topic\n');
    expect(loadInChild(cwd)).toMatchObject({ outputs: { digest: "Digest: About moons" }, cached: false });
  });

  it("is a miss, not an error, where the project's .prose folder cannot be written", () => {
    const cwd = temporaryFolder("prosec-module-cache-");
    writeFileSync(join(cwd, "main.prose"), 'output digest = "plain"\n');
    // A file where the cache's folder would be: nothing can be written under it.
    writeFileSync(join(cwd, ".prose"), "not a folder");
    expect(loadInChild(cwd)).toMatchObject({ outputs: { digest: "plain" }, cached: false });
    expect(loadInChild(cwd)).toMatchObject({ outputs: { digest: "plain" }, cached: false });
  });
});
