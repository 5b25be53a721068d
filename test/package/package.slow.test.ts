/**
 * The npm package as users get it. The file list of `npm pack` holds what the README links to and
 * nothing that points to a missing file; the packed tarball, installed into an app, runs `prosec
 * examples` and `prosec build`, and `prosec/runtime` type-checks under both `moduleResolution: node10`
 * and `NodeNext`. A `file:` dependency on a checkout whose dependencies are not installed fails with a
 * message saying what to do, not with "Cannot find module 'nearley'".
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync, cpSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../runtime/helpers.js";

const npm = (args: readonly string[], cwd: string) =>
  spawnSync("npm", [...args], { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
const node = (args: readonly string[], cwd: string) =>
  spawnSync(process.execPath, [...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
const tsc = join(repositoryRoot, "node_modules/typescript/bin/tsc");

/** What `npm pack` would put in the tarball (scripts skipped: `prepare` would rebuild dist/ under the other tests). */
function packedFiles(): string[] {
  const result = npm(["pack", "--dry-run", "--json", "--ignore-scripts"], repositoryRoot);
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as [{ files: { path: string }[] }])[0].files.map((file) => file.path).sort();
}

/** Relative links of a markdown file (anchors and web addresses left out), as paths from the package root. */
function relativeLinks(file: string, text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/.test(target))
    .map((target) => normalize(join(dirname(file), target)).replace(/\/$/, ""));
}

describe("npm pack", () => {
  let files: string[] = [];
  beforeAll(() => {
    for (const built of ["dist/src/cli/main.js", "dist/runtime/index.d.ts"]) {
      if (!existsSync(join(repositoryRoot, built)))
        throw new Error(`${built} is missing: run \`npm run build\` first (\`npm test\` does)`);
    }
    files = packedFiles();
  });

  it("ships the licence, the docs, the runtime's README and the bundled examples", () => {
    for (const file of [
      "LICENSE",
      "README.md",
      "runtime/README.md",
      "docs/language.md",
      "docs/run-folder.md",
      "examples/openprose/LICENSE",
      "examples/openprose/ORIGIN.md",
      "bin/prosec",
      "dist/runtime/index.d.ts",
      "dist/src/cli/main.js",
    ]) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((file) => /^examples\/openprose\/.*\.prose$/.test(file))).toHaveLength(50);
  });

  it("points to no missing file: no source maps of an unshipped src/, every relative link resolves", () => {
    expect(
      files.filter((file) => file.endsWith(".map") || file.startsWith("src/") || file.startsWith("test/")),
    ).toEqual([]);
    for (const file of files.filter((name) => name.endsWith(".js"))) {
      expect(readFileSync(join(repositoryRoot, file), "utf8"), file).not.toContain("sourceMappingURL");
    }
    const missing: string[] = [];
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      for (const target of relativeLinks(file, readFileSync(join(repositoryRoot, file), "utf8"))) {
        if (!files.some((packed) => packed === target || packed.startsWith(`${target}/`)))
          missing.push(`${file} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the packed package, installed in an app", () => {
  let app = "";
  const prosec = (...args: string[]) => node([join(app, "node_modules/prosec/bin/prosec"), ...args], app);

  beforeAll(() => {
    const packs = temporaryFolder("prosec-pack-");
    const packed = npm(["pack", "--ignore-scripts", "--pack-destination", packs], repositoryRoot);
    expect(packed.status, packed.stderr).toBe(0);
    app = temporaryFolder("prosec-installed-");
    const installed = join(app, "node_modules/prosec");
    mkdirSync(installed, { recursive: true });
    const tarball = readdirSync(packs).find((name) => name.endsWith(".tgz"))!;
    const extracted = spawnSync("tar", ["-xzf", join(packs, tarball), "-C", installed, "--strip-components=1"], {
      encoding: "utf8",
    });
    expect(extracted.status, extracted.stderr).toBe(0);
    // What `npm install` adds beside it: the package's dependencies (linked from this checkout, offline).
    for (const name of readdirSync(join(repositoryRoot, "node_modules"))) {
      if (name === ".bin" || name.startsWith(".") || name === "prosec") continue;
      symlinkSync(join(repositoryRoot, "node_modules", name), join(app, "node_modules", name), "dir");
    }
  });

  it("lists, shows and copies the bundled examples from the package root", () => {
    const list = prosec("examples");
    expect(list.status, list.stderr).toBe(EXIT.ok);
    expect(list.stdout.split("\n").filter((line) => /^\d\d-/.test(line))).toHaveLength(50);
    expect(list.stdout).toMatch(/^01-hello-world +Hello World$/m);
    expect(prosec("examples", "show", "hello-world").stdout).toBe(
      readFileSync(join(repositoryRoot, "examples/openprose/01-hello-world.prose"), "utf8"),
    );
    const copy = prosec("examples", "copy", "1", "workflows");
    expect(copy.status, copy.stderr).toBe(EXIT.ok);
    expect(existsSync(join(app, "workflows/01-hello-world.prose"))).toBe(true);
    const build = prosec("build", "workflows");
    expect(build.status, build.stdout + build.stderr).toBe(EXIT.ok);
    expect(readFileSync(join(app, "workflows/01-hello-world.prose.ts"), "utf8")).toContain('from "prosec/runtime"');
  });

  it.each(["node10", "NodeNext"])("prosec/runtime type-checks in an app with moduleResolution %s", (resolution) => {
    const folder = join(app, `types-${resolution}`);
    mkdirSync(folder);
    writeFileSync(
      join(folder, "main.ts"),
      [
        'import { text, type RunOptions, type Value } from "prosec/runtime";',
        'import type { CompileResult } from "prosec";',
        'import type { ScriptedModel } from "prosec/testing";',
        "const value: Value = text([1, 2]);",
        "const options: RunOptions = { concurrency: 2 };",
        "const compiled: CompileResult | undefined = undefined;",
        "const model: ScriptedModel | undefined = undefined;",
        "export { value, options, compiled, model };",
        // A wrong use must be an error, or the types were not found at all (and everything is `any`).
        "// @ts-expect-error concurrency is a number",
        'export const wrong: RunOptions = { concurrency: "many" };',
        "",
      ].join("\n"),
    );
    const options =
      resolution === "node10"
        ? { module: "commonjs", moduleResolution: "node10", ignoreDeprecations: "6.0" }
        : { module: "NodeNext", moduleResolution: "NodeNext" };
    writeFileSync(
      join(folder, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...options, target: "ES2022", strict: true, noEmit: true, types: [], skipLibCheck: true },
        files: ["main.ts"],
      }),
    );
    const checked = node([tsc, "-p", folder, "--pretty", "false"], folder);
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });
});

describe("a file: dependency on a checkout", () => {
  let folders: string[] = [];
  afterAll(() => {
    folders = [];
  });

  it("whose dependencies are not installed fails with what to do, not with a missing module", () => {
    const checkout = temporaryFolder("prosec-checkout-");
    folders.push(checkout);
    cpSync(join(repositoryRoot, "package.json"), join(checkout, "package.json"));
    cpSync(join(repositoryRoot, "scripts"), join(checkout, "scripts"), { recursive: true });
    cpSync(join(repositoryRoot, "bin"), join(checkout, "bin"), { recursive: true });
    const app = temporaryFolder("prosec-file-dep-");
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { prosec: `file:${checkout}` } }),
    );
    const install = npm(["install", "--offline", "--no-audit", "--no-fund"], app);
    const output = install.stdout + install.stderr;
    expect(install.status).not.toBe(0);
    expect(output).not.toContain("Cannot find module");
    expect(output).toContain(`run \`npm ci\` in ${checkout} first`);
  });
});
