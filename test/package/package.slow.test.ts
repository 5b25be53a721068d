/**
 * The npm package as users get it. `npm pack` (run in a copy of the checkout, scripts and all) packs the
 * current build without rebuilding it, leaves dist/ a link again, and lists exactly the package's files:
 * what the README links to and nothing that points to a missing file. The tarball, installed into an
 * empty project offline (from the npm cache `npm ci` filled), needs no build and no dev dependency:
 * `npx prosec --version`, `prosec examples` and `prosec build` work, `prosec init`'s starter builds and
 * its golden test passes (and init for another project installs prosec from the tarball, not this one;
 * from a global install, which keeps no record of its tarball, packs one from it), and the package's types resolve under `moduleResolution: node10` and
 * `NodeNext`. The packed package.json has no scripts (the checkout's are put back after packing), so
 * npm has no install script to warn about. A `file:` dependency on a checkout whose dependencies are
 * not installed fails with a message saying what to do, not with "Cannot find module 'nearley'".
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, normalize } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { BUILD_SOURCES, copyOfCheckout } from "../support/checkout-copy.js";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const npm = (args: readonly string[], cwd: string) =>
  spawnSync("npm", [...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false", npm_config_fund: "false" },
  });
const node = (args: readonly string[], cwd: string) =>
  spawnSync(process.execPath, [...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
const tsc = join(repositoryRoot, "node_modules/typescript/bin/tsc");
const manifest = JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as {
  version: string;
  license: string;
  files: string[];
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A file of the tarball, as packed. */
function packedFile(tarballFile: string, path: string): string {
  const listed = spawnSync("tar", ["-xzOf", tarballFile, `package/${path}`], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`tar: ${listed.stderr}`);
  return listed.stdout;
}

/** Relative links of a markdown file (anchors and web addresses left out), as paths from the package root. */
function relativeLinks(file: string, text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/.test(target))
    .map((target) => normalize(join(dirname(file), target)).replace(/\/$/, ""));
}

let checkout = "";
/** The build the copy's dist links to before packing, `.dist/<name>`. */
let build = "";
let tarball = "";
let files: string[] = [];

beforeAll(() => {
  for (const built of ["dist/src/cli/main.js", "dist/runtime/index.d.ts"]) {
    if (!existsSync(join(repositoryRoot, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (\`npm test\` does)`);
  }
  // The packed files, and what the build's stamp is computed from (else `prepack` would build again).
  ({ folder: checkout, build } = copyOfCheckout("prosec-checkout-copy-", [
    ...BUILD_SOURCES,
    ...manifest.files.filter((entry) => entry !== "dist" && !entry.startsWith("!")),
  ]));
  const packs = temporaryFolder("prosec-packs-");
  const packed = npm(["pack", "--json", "--pack-destination", packs], checkout);
  expect(packed.status, packed.stderr).toBe(0);
  const report = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [
    { filename: string; files: { path: string }[] },
  ];
  tarball = join(packs, report[0].filename);
  files = report[0].files.map((file) => file.path).sort();
});

describe("npm pack", () => {
  it("packs the current build without rebuilding it, and leaves dist/ the same link", () => {
    expect(lstatSync(join(checkout, "dist")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(checkout, "dist"))).toBe(build);
    // No new build, nothing left of the copy dist/ was while packing.
    expect(readdirSync(join(checkout, ".dist"))).toEqual([build.replace(/^\.dist\//, "")]);
    expect(readdirSync(join(checkout, "dist")).sort()).toEqual(readdirSync(join(repositoryRoot, "dist")).sort());
  });

  it("lists exactly the package's files: the build, the CLI, the docs, the examples, the licence", () => {
    const top = new Set(
      files.map((file) =>
        file
          .split("/")
          .slice(0, file.startsWith("examples/") ? 2 : 1)
          .join("/"),
      ),
    );
    expect([...top].sort()).toEqual([
      "CONTRIBUTING.md",
      "LICENSE",
      "README.md",
      "bench",
      "bin",
      "dist",
      "docs",
      "examples/app",
      "examples/openprose",
      "grammar",
      "package.json",
      "runtime",
    ]);
    expect(files.filter((file) => /^(bench|runtime)\//.test(file))).toEqual(["bench/README.md", "runtime/README.md"]);
    for (const file of [
      "bin/prosec",
      "dist/runtime/index.d.ts",
      "dist/runtime/testing/index.d.ts",
      "dist/src/index.d.ts",
      "dist/src/cli/main.js",
      "dist/view/app.js",
      "docs/language.md",
      "examples/openprose/LICENSE",
      "examples/openprose/ORIGIN.md",
    ]) {
      expect(files, file).toContain(file);
    }
    expect(files.filter((file) => /^examples\/openprose\/.*\.prose$/.test(file))).toHaveLength(50);
    // Nothing of the checkout's machinery: no build stamp, no node_modules or run folders of the example app.
    expect(files.filter((file) => /(^|\/)(\.stamp|node_modules|\.prose)(\/|$)/.test(file))).toEqual([]);
  });

  it("points to no missing file: no source maps of an unshipped src/, every relative link resolves", () => {
    expect(
      files.filter((file) => file.endsWith(".map") || file.startsWith("src/") || file.startsWith("test/")),
    ).toEqual([]);
    for (const file of files.filter((name) => name.endsWith(".js"))) {
      expect(readFileSync(join(checkout, file), "utf8"), file).not.toContain("sourceMappingURL");
    }
    const missing: string[] = [];
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      for (const target of relativeLinks(file, readFileSync(join(checkout, file), "utf8"))) {
        if (!files.some((packed) => packed === target || packed.startsWith(`${target}/`)))
          missing.push(`${file} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("has the metadata a registry page shows, and no scripts: the checkout's are not the package's", () => {
    const packed = JSON.parse(packedFile(tarball, "package.json")) as Record<string, unknown>;
    expect(packed).toMatchObject({ name: "prosec", license: "MIT", engines: { node: ">=20.19" } });
    expect(typeof packed["description"]).toBe("string");
    expect(packed["keywords"]).toEqual(expect.arrayContaining(["openprose", "compiler", "llm", "agents"]));
    expect(packed["bin"]).toEqual(manifest.bin);
    // Not even `prepare`: npm counts it as an install script of a tarball or folder it installs.
    expect(packed).not.toHaveProperty("scripts");
    // The checkout's package.json is put back as it was, byte for byte, and nothing is left aside.
    expect(readFileSync(join(checkout, "package.json"), "utf8")).toBe(
      readFileSync(join(repositoryRoot, "package.json"), "utf8"),
    );
    expect(existsSync(join(checkout, ".dist/packing.package.json"))).toBe(false);
  });

  it("passes the release check: every file package.json points to is packed, and no script", () => {
    const checked = node([join(checkout, "scripts/check-package.mjs"), tarball], checkout);
    expect(checked.stderr).toBe("");
    expect(checked.status).toBe(0);
    expect(checked.stdout).toContain("is whole");
  });

  it("with --ignore-scripts packs no build, which the release check refuses, saying how to pack it", () => {
    const packs = temporaryFolder("prosec-packs-unscripted-");
    const packed = npm(["pack", "--ignore-scripts", "--json", "--pack-destination", packs], checkout);
    expect(packed.status, packed.stderr).toBe(0);
    const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as [{ filename: string }];
    const checked = node([join(checkout, "scripts/check-package.mjs"), join(packs, filename)], checkout);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toContain("lacks files package.json points to: dist/src/index.js, dist/src/index.d.ts");
    expect(checked.stderr).toContain("still has the checkout's scripts");
    expect(checked.stderr).toContain("Pack it with scripts on: `npm run release`");
    // The checkout is as it was: dist/ the same link.
    expect(readlinkSync(join(checkout, "dist"))).toBe(build);
  });

  it("puts back the package.json of a pack that died before its postpack", () => {
    const before = node([join(checkout, "scripts/pack-dist.mjs"), "before"], checkout);
    expect(before.status, before.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(checkout, "package.json"), "utf8"))).not.toHaveProperty("scripts");
    // No `after`: the pack died. The next pack starts from the checkout's package.json.
    const again = node([join(checkout, "scripts/pack-dist.mjs"), "before"], checkout);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain("an earlier pack did not finish");
    const after = node([join(checkout, "scripts/pack-dist.mjs"), "after"], checkout);
    expect(after.status, after.stderr).toBe(0);
    expect(readFileSync(join(checkout, "package.json"), "utf8")).toBe(
      readFileSync(join(repositoryRoot, "package.json"), "utf8"),
    );
    expect(readlinkSync(join(checkout, "dist"))).toBe(build);
  });
});

/** The TypeScript and Node types `prosec init` says to install beside prosec (and what they depend on). */
const STARTER_TOOLS = ["typescript", "@types/node", "undici-types"];

/**
 * An app's package.json and package-lock.json beside the tarball: prosec from the tarball, its
 * dependencies and the starter's TypeScript at the versions the checkout's own lockfile pins. A lockfile
 * names each package's tarball, so `npm ci --offline` installs everything from the npm cache that `npm
 * ci` in the checkout filled, with no registry metadata.
 */
function writeApp(app: string, tarballFile: string): void {
  const locked = JSON.parse(readFileSync(join(repositoryRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; version: string }>;
  };
  const packages: Record<string, unknown> = {};
  for (const [path, entry] of Object.entries(locked.packages)) {
    if (path === "" || entry.devOptional) continue;
    if (!entry.dev || STARTER_TOOLS.some((tool) => path === `node_modules/${tool}`)) packages[path] = entry;
  }
  const tools = Object.fromEntries(
    STARTER_TOOLS.slice(0, 2).map((tool) => [tool, locked.packages[`node_modules/${tool}`]!.version]),
  );
  const file = `file:${basename(tarballFile)}`;
  const integrity = `sha512-${createHash("sha512").update(readFileSync(tarballFile)).digest("base64")}`;
  const { dependencies, engines, license, version, bin } = manifest;
  packages["node_modules/prosec"] = { version, resolved: file, integrity, license, dependencies, bin, engines };
  const root = { name: "app", version: "1.0.0", dependencies: { prosec: file }, devDependencies: tools };
  packages[""] = root;
  writeFileSync(join(app, "package.json"), `${JSON.stringify({ ...root, private: true }, null, 2)}\n`);
  writeFileSync(
    join(app, "package-lock.json"),
    `${JSON.stringify({ name: "app", version: "1.0.0", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

describe("the packed package, installed into an empty project offline", () => {
  let app = "";
  const npx = (...args: string[]) => npm(["exec", "--offline", "--", ...args], app);

  beforeAll(() => {
    app = temporaryFolder("prosec-installed-");
    const copied = join(app, basename(tarball));
    cpSync(tarball, copied);
    writeApp(app, copied);
    const installed = npm(["ci", "--offline", "--no-audit"], app);
    expect(installed.status, installed.stdout + installed.stderr).toBe(0);
  });

  it("has no script for npm to ask the user to approve when `npm install` installs the tarball", () => {
    // As the README says to install it; its dependencies are in place from the lockfile, so offline.
    const installed = npm(["install", "--offline", "--no-audit", `./${basename(tarball)}`], app);
    const output = installed.stdout + installed.stderr;
    expect(installed.status, output).toBe(0);
    expect(output).not.toMatch(/install.scripts|allowScripts/i);
  });

  it("runs no build and installs no dev dependency", () => {
    const prosecFolder = join(app, "node_modules/prosec");
    expect(lstatSync(join(prosecFolder, "dist")).isDirectory()).toBe(true);
    expect(existsSync(join(prosecFolder, ".dist"))).toBe(false);
    const installed = readdirSync(join(app, "node_modules"));
    for (const name of ["vitest", "esbuild", "eslint", "mermaid", "playwright-core", "remark-cli"])
      expect(installed, name).not.toContain(name);
    expect(Object.keys(manifest.devDependencies)).toContain("vitest");
  });

  it("runs `npx prosec --version`", () => {
    const version = npx("prosec", "--version");
    expect(version.stderr).toBe("");
    expect(version.stdout.trim()).toBe(manifest.version);
  });

  it("lists, shows and copies the bundled examples from the package root, and builds them", () => {
    const list = npx("prosec", "examples");
    expect(list.status, list.stderr).toBe(EXIT.ok);
    expect(list.stdout.split("\n").filter((line) => /^\d\d-/.test(line))).toHaveLength(50);
    expect(list.stdout).toMatch(/^01-hello-world +Hello World$/m);
    expect(npx("prosec", "examples", "show", "hello-world").stdout).toBe(
      readFileSync(join(repositoryRoot, "examples/openprose/01-hello-world.prose"), "utf8"),
    );
    expect(npx("prosec", "examples", "copy", "1", "workflows").status).toBe(EXIT.ok);
    const build = npx("prosec", "build", "workflows");
    expect(build.status, build.stdout + build.stderr).toBe(EXIT.ok);
    expect(readFileSync(join(app, "workflows/01-hello-world.prose.ts"), "utf8")).toContain('from "prosec/runtime"');
  });

  it.each(["node10", "NodeNext"])(
    "prosec, prosec/runtime and prosec/testing type-check with moduleResolution %s",
    (resolution) => {
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
    },
  );

  it("sets up init's starter, which builds and passes its golden test", () => {
    const init = npx("prosec", "init");
    expect(init.status, init.stdout + init.stderr).toBe(EXIT.ok);
    expect(init.stdout).toContain("added to package.json");
    // init's next steps (the TypeScript and Node types it names were installed above).
    const built = npm(["run", "build"], app);
    expect(built.status, built.stdout + built.stderr).toBe(0);
    expect(existsSync(join(app, "dist/research.prose.js"))).toBe(true);
    const tested = npm(["test"], app);
    expect(tested.status, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain("1 passed, 0 failed");
  });

  it("run for another project, says to install prosec from the tarball, never from this one's node_modules", () => {
    const elsewhere = temporaryFolder("prosec-init-elsewhere-");
    const init = npx("prosec", "init", elsewhere);
    expect(init.status, init.stdout + init.stderr).toBe(EXIT.ok);
    const next = init.stdout.slice(init.stdout.indexOf("next:"));
    expect(next).toContain(`npm install ${join(app, basename(tarball))} && npm install --save-dev typescript@6`);
    expect(next).not.toContain("node_modules");
  });

  it("installed globally, has a new project pack it from that install: prosec is not on the registry", () => {
    // A global install's layout (npm install -g --prefix P): the package at P/lib/node_modules/prosec
    // with its own dependencies, and no record of the tarball it came from.
    const prefix = temporaryFolder("prosec-global-");
    const root = join(prefix, "lib/node_modules/prosec");
    mkdirSync(root, { recursive: true });
    expect(spawnSync("tar", ["-xzf", tarball, "-C", root, "--strip-components=1"]).status).toBe(0);
    symlinkSync(join(app, "node_modules"), join(root, "node_modules"));
    const elsewhere = temporaryFolder("prosec-init-global-");
    const init = node([join(root, "bin/prosec"), "init"], elsewhere);
    expect(init.status, init.stdout + init.stderr).toBe(EXIT.ok);
    const next = init.stdout.slice(init.stdout.indexOf("next:"));
    const pack = `npm pack --silent ${root}`;
    expect(next).toContain(`  ${pack} && npm install ./${basename(tarball)} && npm install --save-dev typescript@6`);
    expect(next).not.toContain(`prosec@${manifest.version}`);
    // What that command packs is the package as it was installed: the same files, no script to run.
    const packed = npm(["pack", "--silent", root], elsewhere);
    expect(packed.status, packed.stderr).toBe(0);
    expect(packed.stdout.trim()).toBe(basename(tarball));
    const listed = spawnSync("tar", ["-tzf", join(elsewhere, basename(tarball))], { encoding: "utf8" });
    expect(listed.stdout.split("\n").filter(Boolean).sort()).toEqual(files.map((file) => `package/${file}`).sort());
  });
});

describe("a file: dependency on a checkout", () => {
  it("whose dependencies are not installed fails with what to do, not with a missing module", () => {
    const bare = temporaryFolder("prosec-checkout-");
    cpSync(join(repositoryRoot, "package.json"), join(bare, "package.json"));
    for (const folder of ["scripts", "bin", "src", "runtime", "grammar"])
      cpSync(join(repositoryRoot, folder), join(bare, folder), { recursive: true });
    const project = temporaryFolder("prosec-file-dep-");
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { prosec: `file:${bare}` } }),
    );
    const install = npm(["install", "--offline", "--no-audit"], project);
    const output = install.stdout + install.stderr;
    expect(install.status).not.toBe(0);
    expect(output).not.toContain("Cannot find module");
    expect(output).toContain(`run \`npm ci\` in ${bare} first`);
  });
});
