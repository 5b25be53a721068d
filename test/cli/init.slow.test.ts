/**
 * `prosec init`, then the README's "Use it in your app" steps, give a project whose modules type-check
 * in strict mode and whose golden test passes, offline. The README's package.json scripts, tsconfig.json
 * and src/main.ts are the ones used here, read from the README itself.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { STARTER_SCRIPTS, STARTER_TSCONFIG } from "../../src/init/starter.js";
import { prosec, repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
const appSection = readme.slice(readme.indexOf("## Use it in your app"), readme.indexOf("## Commands"));

/** The code blocks of the README's app section in a language, dedented from their list item. */
function blocks(language: string): string[] {
  return [...appSection.matchAll(new RegExp(`^( *)\`\`\`${language}\\n([\\s\\S]*?)^\\1\`\`\``, "gm"))].map((match) =>
    match[2]!
      .split("\n")
      .map((line) => line.slice(match[1]!.length))
      .join("\n"),
  );
}

/** What `npm install ../prosec` and `npm install --save-dev typescript @types/node` leave, offline. */
function install(app: string): void {
  mkdirSync(join(app, "node_modules/@types"), { recursive: true });
  symlinkSync(repositoryRoot, join(app, "node_modules/prosec"), "dir");
  symlinkSync(join(repositoryRoot, "node_modules/typescript"), join(app, "node_modules/typescript"), "dir");
  symlinkSync(join(repositoryRoot, "node_modules/@types/node"), join(app, "node_modules/@types/node"), "dir");
}

const tsc = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(repositoryRoot, "node_modules/typescript/bin/tsc"), ...args], {
    cwd,
    encoding: "utf8",
  });

describe("prosec init", () => {
  it("sets up what the README describes; with its app steps the project type-checks strictly and its test passes", () => {
    const folder = temporaryFolder("prosec-init-");
    const made = prosec(["init", "app"], folder);
    expect(made.status, made.stderr).toBe(EXIT.ok);
    expect(made.stdout).toContain("wrote src/research.prose");
    expect(made.stdout).toContain("wrote tests/research.golden/");
    expect(made.stdout).toMatch(
      /next:\n {2}cd app\n {2}npm install \S+ && npm install --save-dev typescript@6 @types\/node@20\n {2}npm run build && npm test\n/,
    );
    const app = join(folder, "app");
    expect(existsSync(join(app, ".prose"))).toBe(false);
    expect(readFileSync(join(app, ".gitignore"), "utf8").split("\n")).toContain(".prose/");

    // The README shows what init writes.
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
    expect(JSON.parse(blocks("json")[0]!)).toEqual({ type: "module", scripts: STARTER_SCRIPTS });
    expect(manifest).toMatchObject({ type: "module", scripts: STARTER_SCRIPTS });
    expect(JSON.parse(blocks("json")[1]!)).toEqual(STARTER_TSCONFIG);
    expect(JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8"))).toEqual(STARTER_TSCONFIG);
    expect(blocks("text")[0]!.trim().split("\n")).toEqual(
      readFileSync(join(app, ".gitignore"), "utf8").trim().split("\n"),
    );

    // The README's steps: install, src/main.ts, npm run build (prosec build src && tsc), npm test.
    install(app);
    writeFileSync(join(app, "src/main.ts"), blocks("ts")[0]!);
    const built = prosec(["build", "src"], app);
    expect(built.status, built.stdout + built.stderr).toBe(EXIT.ok);
    const compiled = tsc(app, "-p", "tsconfig.json", "--strict");
    expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0);
    expect(readdirSync(join(app, "dist")).sort()).toEqual(["main.js", "research.prose.js"]);
    const tested = prosec(["test"], app);
    expect(tested.status, tested.stdout + tested.stderr).toBe(EXIT.ok);
    expect(tested.stdout).toContain("✓ tests/research.golden (src/research.prose)");
    expect(tested.stdout.trim().split("\n").at(-1)).toBe("1 passed, 0 failed");
    // npm test's eval of the starter: three cases, offline with the scripted model.
    const evaluated = prosec(STARTER_SCRIPTS.test.split(" && ")[1]!.split(" ").slice(1), app);
    expect(evaluated.status, evaluated.stdout + evaluated.stderr).toBe(EXIT.ok);
    expect(evaluated.stdout).toContain("evals/research.eval.prose · 3 cases · 3 scored, 0 errors");
    expect(evaluated.stdout).toContain("Against --min 0.9:\n  passed");
    // npm run check: the committed module is current.
    expect(prosec(["build", "--check", "src"], app).status).toBe(EXIT.ok);

    // A second init overwrites nothing.
    const before = readFileSync(join(app, "package.json"), "utf8");
    const again = prosec(["init"], app);
    expect(again.status).toBe(EXIT.usage);
    expect(again.stderr).toBe(
      "prosec: src/research.prose, tests/research.golden and evals/research.eval.prose already exist in .: init overwrites nothing\n",
    );
    expect(readFileSync(join(app, "package.json"), "utf8")).toBe(before);
  });

  it("adds to an existing package.json and .gitignore, and refuses a script of its own name before writing anything", () => {
    const app = temporaryFolder("prosec-init-existing-");
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "mine", scripts: { lint: "eslint ." } }));
    writeFileSync(join(app, ".gitignore"), "coverage/");
    const made = prosec(["init"], app);
    expect(made.status, made.stderr).toBe(EXIT.ok);
    expect(made.stdout).toContain("added to package.json");
    expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8"))).toEqual({
      name: "mine",
      type: "module",
      scripts: { lint: "eslint .", ...STARTER_SCRIPTS },
    });
    expect(readFileSync(join(app, ".gitignore"), "utf8")).toBe("coverage/\n.prose/\nnode_modules/\ndist/\n");

    const other = temporaryFolder("prosec-init-clash-");
    writeFileSync(join(other, "package.json"), JSON.stringify({ scripts: { test: "vitest" } }));
    const refused = prosec(["init"], other);
    expect(refused.status).toBe(EXIT.usage);
    expect(refused.stderr).toContain('package.json already has the script "test": init overwrites nothing');
    expect(readdirSync(other)).toEqual(["package.json"]);
  });

  // What `npm init -y` writes (npm 11): its placeholder test script and `"type": "commonjs"`.
  const npmInit = {
    name: "fresh",
    version: "1.0.0",
    main: "index.js",
    scripts: { test: 'echo "Error: no test specified" && exit 1' },
    type: "commonjs",
  };

  it("sets up a fresh `npm init -y` project: npm's placeholder test script and commonjs type are no one's choice", () => {
    const app = temporaryFolder("prosec-init-npm-");
    writeFileSync(join(app, "package.json"), JSON.stringify(npmInit));
    const made = prosec(["init"], app);
    expect(made.status, made.stderr).toBe(EXIT.ok);
    expect(made.stdout).toContain(
      `added to package.json (scripts build, check, test and eval; "type": "module"; "type" was "commonjs", with no code yet; npm's placeholder test script replaced)`,
    );
    expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8"))).toEqual({
      ...npmInit,
      type: "module",
      scripts: STARTER_SCRIPTS,
    });
  });

  it("refuses commonjs when the project has code, naming a file and the command that switches", () => {
    const app = temporaryFolder("prosec-init-cjs-");
    writeFileSync(join(app, "package.json"), JSON.stringify(npmInit));
    mkdirSync(join(app, "lib"));
    writeFileSync(join(app, "lib/server.js"), "module.exports = {};\n");
    const refused = prosec(["init"], app);
    expect(refused.status).toBe(EXIT.usage);
    expect(refused.stderr).toBe(
      'prosec: package.json says "type": "commonjs" and the project has code (lib/server.js): generated modules are ES modules, so the project needs "type": "module". Set it with `npm pkg set type=module` once your code is ready for it (or run prosec init in a folder of its own), then run prosec init again\n',
    );
    expect(readdirSync(app).sort()).toEqual(["lib", "package.json"]);
  });

  it("refuses a file where it would make a folder, before writing anything (it crashed, exit 3)", () => {
    const parent = temporaryFolder("prosec-init-file-");
    writeFileSync(join(parent, "notes"), "mine\n");
    const named = prosec(["init", "notes"], parent);
    expect(named.status, named.stderr).toBe(EXIT.usage);
    expect(named.stderr).toBe(
      "prosec: notes is a file, not a folder: name the folder to set the project up in (it is made when missing)\n",
    );
    mkdirSync(join(parent, "app"));
    writeFileSync(join(parent, "app/tests"), "mine\n");
    const inside = prosec(["init", "app"], parent);
    expect(inside.status, inside.stderr).toBe(EXIT.usage);
    expect(inside.stderr).toBe(
      "prosec: app/tests is a file, not a folder: init puts the golden test in it; move the file away first\n",
    );
    // Refused whole: without the check, the starter, package.json and tsconfig.json were written first.
    expect(readdirSync(join(parent, "app"))).toEqual(["tests"]);
    expect(readFileSync(join(parent, "notes"), "utf8")).toBe("mine\n");
  });
});
