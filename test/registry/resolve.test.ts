/**
 * `check`, `build`, `run` and the language server resolve registry references through prose.lock
 * and the vendored copies only: a project is set up by `prosec add` against the fake registry once,
 * then copied for each test; nothing after that touches the network.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPrograms } from "../../src/cli/check-command.js";
import { findPrograms } from "../../src/project/files.js";
import { Workspace } from "../../src/lsp/workspace.js";
import { build } from "../../src/project/build.js";
import { addPrograms } from "../../src/registry/project.js";
import { loadProgram } from "../../src/run/load-program.js";
import { startFakeRegistry, type FakeRegistry } from "../support/fake-registry.js";
import { registryPrograms, research } from "./programs.js";
import { temporaryFolder } from "../support/temp.js";

let registry: FakeRegistry;
let template: string;
beforeAll(async () => {
  registry = await startFakeRegistry(registryPrograms);
  template = temporaryFolder("prosec-registry-template-");
  await addPrograms(["alice/research", "cyc/a"], { cwd: template, registry: registry.url });
  // From here on the registry is gone: resolution must never need it.
  await registry.close();
});
afterAll(() => rmSync(template, { recursive: true, force: true }));

const main = 'use "@alice/research" as research\n\nlet r = research(topic: "tides")\n\noutput report = r.summary\n';

function project(files: Record<string, string>): string {
  const folder = temporaryFolder("prosec-registry-project-");
  cpSync(template, folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

function codes(folder: string, paths: readonly string[] = ["."]): string[] {
  return checkPrograms(paths, { cwd: folder }).flatMap((file) =>
    file.diagnostics.map(
      (diagnostic) =>
        `${file.file}:${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.code} ${diagnostic.message}`,
    ),
  );
}

describe("check: remote programs through prose.lock", () => {
  it("checks a program that uses a pinned one, and the vendored programs, as local ones", () => {
    const folder = project({ "main.prose": main });
    const checked = checkPrograms(["main.prose"], { cwd: folder });
    expect(checked.map((file) => [file.file, file.diagnostics.length])).toEqual([
      ["main.prose", 0],
      ["prose_modules/alice/research.prose", 0],
      ["prose_modules/bob/search.prose", 0],
    ]);
  });

  it("types a call by the imported program's inputs and outputs", () => {
    const folder = project({
      "main.prose":
        'use "alice/research" as research\n\nlet r = research(subject: "tides")\n\noutput report = r.title\n',
    });
    expect(codes(folder, ["main.prose"])).toEqual([
      "main.prose:3:9 E026 program `research` needs input `topic`",
      "main.prose:3:18 E027 program `research` has no input `subject`",
      "main.prose:5:19 E028 program `research` has no output `title`",
    ]);
  });

  it("names `prosec add` for a reference prose.lock does not pin (no lockfile at all, or not in it)", () => {
    const alone = temporaryFolder("prosec-registry-alone-");
    writeFileSync(join(alone, "main.prose"), 'use "carol/news"\n\nsession "Hi"\n');
    const expected = "main.prose:1:5 P008 `carol/news` is not in prose.lock: building never fetches a program";
    expect(codes(alone)).toEqual([expected]);
    expect(checkPrograms(["."], { cwd: alone })[0]!.diagnostics[0]!.hint).toBe(
      "fetch it once into the project with `prosec add carol/news`",
    );
    expect(codes(project({ "main.prose": 'use "@carol/news"\n\nsession "Hi"\n' }))).toEqual([
      "main.prose:1:5 P008 `@carol/news` is not in prose.lock: building never fetches a program",
    ]);
  });

  it("tells a `use` of a path ending in .prose (a local file meant, without `./`) to write `./`", () => {
    const folder = temporaryFolder("prosec-registry-path-");
    mkdirSync(join(folder, "lib"));
    writeFileSync(join(folder, "lib/helper.prose"), 'output answer = session "Help"\n');
    writeFileSync(join(folder, "main.prose"), 'use "lib/helper.prose" as helper\n\noutput r = helper()\n');
    const [diagnostic] = checkPrograms(["main.prose"], { cwd: folder })[0]!.diagnostics;
    expect(diagnostic!.code).toBe("P008");
    expect(diagnostic!.hint).toBe(
      'a local program\'s path starts with `./` or `../`: write `use "./lib/helper.prose"` (a registry reference, handle/slug, has no `.prose`)',
    );
  });

  it("names the program beside a mistyped local `use` (P030), and only one a typo away", () => {
    const folder = temporaryFolder("prosec-use-typo-");
    mkdirSync(join(folder, "lib"));
    writeFileSync(join(folder, "lib/helper.prose"), 'output answer = session "Help"\n');
    const hint = (use: string) => {
      writeFileSync(join(folder, "main.prose"), `use "${use}" as helper\n\noutput r = helper()\n`);
      const [diagnostic] = checkPrograms(["main.prose"], { cwd: folder })[0]!.diagnostics;
      expect(diagnostic!.code).toBe("P030");
      return diagnostic!.hint;
    };
    expect(hint("./lib/helpr")).toBe("did you mean `./lib/helper`? The path is relative to this file");
    expect(hint("./lib/hepler.prose")).toBe("did you mean `./lib/helper.prose`? The path is relative to this file");
    expect(hint("./lib/summary")).toBe("check the path: it is relative to this file");
    expect(hint("./nowhere/helper")).toBe("check the path: it is relative to this file");
  });

  it("refuses a vendored copy that is missing or differs from the lockfile's hash", () => {
    const folder = project({ "main.prose": main });
    writeFileSync(join(folder, "prose_modules/alice/research.prose"), research.replace("Summarise", "Leak"));
    expect(codes(folder, ["main.prose"])).toEqual([
      "main.prose:1:5 P032 the vendored copy of `@alice/research` (`prose_modules/alice/research.prose`) differs from the SHA-256 in prose.lock",
    ]);
    rmSync(join(folder, "prose_modules/alice/research.prose"));
    expect(codes(folder, ["main.prose"])).toEqual([
      "main.prose:1:5 P032 the vendored copy of `@alice/research` is missing (`prose_modules/alice/research.prose`)",
    ]);
  });

  it("reports a cycle of imports with its chain, local or remote", () => {
    const local = project({
      "a.prose": 'use "./b" as b\n\noutput x = session "A"\n',
      "b.prose": 'use "./a" as a\n\noutput y = session "B"\n',
    });
    expect(codes(local)).toEqual([
      "a.prose:1:5 P033 programs import each other in a cycle: a.prose → b.prose → a.prose",
      "b.prose:1:5 P033 programs import each other in a cycle: b.prose → a.prose → b.prose",
    ]);
    const remote = project({ "main.prose": 'use "cyc/a" as a\n\nsession "Hi"\n' });
    expect(codes(remote)).toEqual([
      "prose_modules/cyc/a.prose:1:5 P033 programs import each other in a cycle: prose_modules/cyc/a.prose → prose_modules/cyc/b.prose → prose_modules/cyc/a.prose",
      "prose_modules/cyc/b.prose:1:5 P033 programs import each other in a cycle: prose_modules/cyc/b.prose → prose_modules/cyc/a.prose → prose_modules/cyc/b.prose",
    ]);
  });

  it("reports a prose.lock it cannot read at each remote `use`", () => {
    const folder = project({ "main.prose": main });
    writeFileSync(join(folder, "prose.lock"), '{ "lockfileVersion": 2 }\n');
    expect(codes(folder, ["main.prose"])).toEqual([
      "main.prose:1:5 P034 prose.lock is not a version 1 lockfile ({ lockfileVersion: 1, registry, programs: { ref: { url, sha256, uses } } })",
    ]);
    writeFileSync(join(folder, "prose.lock"), "{ not json");
    expect(codes(folder, ["main.prose"])[0]).toMatch(/^main\.prose:1:5 P034 prose\.lock is not valid JSON \(/);
  });

  it("reports upstream OpenProse's plaintext prose.lock as P042 at each remote `use`, never as bad JSON", () => {
    const folder = project({ "main.prose": main });
    writeFileSync(join(folder, "prose.lock"), "github.com/alice/tools 3f2a9c1d0b7e4a5f6c8d9e0a1b2c3d4e5f6a7b8c\n");
    expect(codes(folder, ["main.prose"])).toEqual([
      "main.prose:1:5 P042 prose.lock is OpenProse's git-native lockfile (`host/owner/repo sha` lines), which prosec does not read",
    ]);
  });

  it("skips prose_modules/ when searching a folder", () => {
    const folder = project({ "main.prose": 'session "Hi"\n' });
    expect(findPrograms(["."], folder)).toEqual(["main.prose"]);
  });
});

describe("build: a vendored program is compiled into its own module, once", () => {
  it("emits each imported program once however many programs use it, and imports it by a relative path", async () => {
    const folder = project({ "main.prose": main, "other.prose": main.replace("tides", "winds") });
    const result = await build(["."], { cwd: folder, outDir: join(folder, "gen") });
    expect(result.exitCode).toBe(0);
    expect(result.programs.map((program) => `${program.output} ${program.status}`)).toEqual([
      "gen/main.prose.ts written",
      "gen/other.prose.ts written",
      "gen/prose_modules/alice/research.prose.ts written",
      "gen/prose_modules/bob/search.prose.ts written",
    ]);
    expect(readFileSync(join(folder, "gen/main.prose.ts"), "utf8")).toContain(
      'import * as research from "./prose_modules/alice/research.prose.js";',
    );
    expect(readFileSync(join(folder, "gen/prose_modules/alice/research.prose.ts"), "utf8")).toContain(
      'import * as search from "../bob/search.prose.js";',
    );
    // Beside the sources, too: the module sits next to the vendored copy.
    const beside = project({ "main.prose": main });
    expect((await build(["main.prose"], { cwd: beside })).exitCode).toBe(0);
    expect(readFileSync(join(beside, "main.prose.ts"), "utf8")).toContain(
      'from "./prose_modules/alice/research.prose.js";',
    );
    expect(existsSync(join(beside, "prose_modules/bob/search.prose.ts"))).toBe(true);
  });

  it("writes nothing when a vendored copy differs from the lockfile", async () => {
    const folder = project({ "main.prose": main });
    writeFileSync(join(folder, "prose_modules/bob/search.prose"), 'session "changed"\n');
    const result = await build(["main.prose"], { cwd: folder });
    expect(result.exitCode).toBe(1);
    expect(result.programs.flatMap((program) => program.diagnostics.map((diagnostic) => diagnostic.code))).toEqual([
      "P032",
    ]);
    expect(existsSync(join(folder, "main.prose.ts"))).toBe(false);
  });
});

describe("run and the language server", () => {
  it("loads a program with the vendored programs it uses as modules", async () => {
    const folder = project({ "main.prose": main });
    const loaded = await loadProgram("main.prose", { cwd: folder });
    expect(loaded.files.map((file) => file.file)).toEqual([
      "main.prose",
      "prose_modules/alice/research.prose",
      "prose_modules/bob/search.prose",
    ]);
    expect(loaded.module?.default.outputs).toEqual(["report"]);
  });

  it("resolves pinned references in the editor as check does", () => {
    const folder = project({});
    const uri = pathToFileURL(join(folder, "main.prose")).href;
    const open = new Map<string, TextDocument>();
    const workspace = new Workspace({ get: (key) => open.get(key), all: () => [...open.values()] }, { strict: false });
    const diagnosticsOf = (text: string, version: number) => {
      open.set(uri, TextDocument.create(uri, "prose", version, text));
      return workspace.documentAt(uri)!.diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.message}`);
    };
    expect(diagnosticsOf(main, 1)).toEqual([]);
    expect(diagnosticsOf(main.replace("topic:", "subject:"), 2)).toEqual([
      "E026 program `research` needs input `topic`",
      "E027 program `research` has no input `subject`",
    ]);
    expect(diagnosticsOf('use "dave/other"\n\nsession "Hi"\n', 3)).toEqual([
      "P008 `dave/other` is not in prose.lock: building never fetches a program",
    ]);
    // The same text, after prose.lock changed on disk (as `prosec add` would change it): checked again.
    const lock = readFileSync(join(folder, "prose.lock"), "utf8");
    rmSync(join(folder, "prose.lock"));
    expect(diagnosticsOf(main, 1)).toEqual([
      "P008 `@alice/research` is not in prose.lock: building never fetches a program",
    ]);
    writeFileSync(join(folder, "prose.lock"), lock);
    expect(diagnosticsOf(main, 1)).toEqual([]);
  });
});
