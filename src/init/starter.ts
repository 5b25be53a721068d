/**
 * `prosec init [DIR]`: a project set up the way the README's "Use it in your app" describes. A starter
 * program (the example app's research.prose), npm scripts to build, check and test it, `.prose/` in
 * .gitignore, a tsconfig.json when there is none, and a golden test of the starter recorded with the
 * scripted model, so `prosec test` passes at once, and an eval of the starter with three cases that
 * `npm test` runs offline with the scripted model (starter-eval.ts). Nothing that exists is overwritten: package.json and
 * .gitignore are added to, and a file init would write that is already there refuses the whole init
 * before anything is written.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { makeDirectory } from "../../runtime/stored-runs.js";
import { UsageError } from "../errors.js";
import { packageRoot } from "../package-root.js";
import { recordStarterGolden, STARTER } from "./record-golden.js";
import { STARTER_EVAL, STARTER_EVAL_COMMANDS, writeStarterEval } from "./starter-eval.js";

export { STARTER } from "./record-golden.js";

/** The npm scripts init adds: the names the README uses. */
export const STARTER_SCRIPTS = {
  build: "prosec build src && tsc",
  check: "prosec check --strict src && prosec build --check src && tsc --noEmit",
  test: `prosec test && ${STARTER_EVAL_COMMANDS.offline}`,
  eval: STARTER_EVAL_COMMANDS.model,
} as const;

/** The tsconfig.json of the README: NodeNext resolves the generated modules' `./x.prose.js` imports. */
export const STARTER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    skipLibCheck: true,
    types: ["node"],
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src"],
};

const IGNORED = [".prose/", "node_modules/", "dist/"];

export interface InitReport {
  /** What init did, one line each, paths relative to the project: `wrote src/research.prose`. */
  readonly lines: readonly string[];
}

export async function initProject(dir: string): Promise<InitReport> {
  const root = resolve(dir);
  const path = (relative: string) => join(root, relative);
  const taken = [STARTER.program, STARTER.golden, STARTER_EVAL.program].filter((relative) =>
    existsSync(path(relative)),
  );
  if (taken.length > 0)
    throw new UsageError(
      `${[taken.slice(0, -1).join(", "), taken.at(-1)].filter(Boolean).join(" and ")} already exist${taken.length === 1 ? "s" : ""} in ${dir}: init overwrites nothing`,
    );
  // A file where init makes a folder would stop it halfway, the starter written and its test not.
  const notFolder = [".", "src", dirname(STARTER.golden), dirname(STARTER_EVAL.program)].find(
    (relative) => existsSync(path(relative)) && !statSync(path(relative)).isDirectory(),
  );
  if (notFolder !== undefined)
    throw new UsageError(
      notFolder === "."
        ? `${dir} is a file, not a folder: name the folder to set the project up in (it is made when missing)`
        : `${join(dir, notFolder)} is a file, not a folder: init puts ${notFolder === "src" ? "the starter program" : notFolder === "tests" ? "the golden test" : "the eval"} in it; move the file away first`,
    );
  const manifest = packageManifest(path("package.json"), root);

  const lines: string[] = [];
  makeDirectory(path("src"));
  writeFileSync(path(STARTER.program), readFileSync(join(packageRoot(), STARTER.example), "utf8"));
  lines.push(`wrote ${STARTER.program} (a starter program: three researchers in parallel, then a writer)`);
  writeFileSync(path("package.json"), `${JSON.stringify(manifest.json, null, 2)}\n`);
  lines.push(
    `${manifest.existed ? "added to" : "wrote"} package.json (scripts build, check, test and eval; "type": "module"${manifest.replaced.map((change) => `; ${change}`).join("")})`,
  );
  if (existsSync(path("tsconfig.json")))
    lines.push("kept tsconfig.json (it needs module and moduleResolution NodeNext)");
  else {
    writeFileSync(path("tsconfig.json"), `${JSON.stringify(STARTER_TSCONFIG, null, 2)}\n`);
    lines.push("wrote tsconfig.json (strict, NodeNext)");
  }
  lines.push(ignore(path(".gitignore")));
  await recordStarterGolden(root, STARTER);
  lines.push(`wrote ${STARTER.golden}/ (a golden test of the starter, recorded with the scripted model)`);
  writeStarterEval(root);
  lines.push(
    `wrote ${STARTER_EVAL.program} and its three cases (an eval of the starter: npm test runs it offline, npm run eval with the model)`,
  );
  return { lines };
}

/** The test script `npm init` writes: a placeholder, which init replaces as if there were none. */
const NPM_PLACEHOLDER_TEST = 'echo "Error: no test specified" && exit 1';

interface Manifest {
  readonly json: Record<string, unknown>;
  readonly existed: boolean;
  /** What init changed that was set before, said in its report. */
  readonly replaced: readonly string[];
}

/**
 * package.json with the starter's scripts and `"type": "module"`, refusing to change what is set
 * otherwise. What `npm init -y` writes is no one's choice and is changed: its placeholder `test`
 * script, and `"type": "commonjs"` (npm 11's default) while the project holds no code it could break.
 */
function packageManifest(file: string, root: string): Manifest {
  if (!existsSync(file))
    return {
      existed: false,
      replaced: [],
      json: {
        name: packageName(root),
        version: "0.1.0",
        private: true,
        type: "module",
        scripts: { ...STARTER_SCRIPTS },
      },
    };
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    throw new UsageError("package.json is not JSON: fix it, then run prosec init again");
  }
  const replaced: string[] = [];
  if (json["type"] === "commonjs") {
    const code = firstCodeFile(root);
    if (code !== undefined)
      throw new UsageError(
        `package.json says "type": "commonjs" and the project has code (${code}): generated modules are ES modules, so the project needs "type": "module". Set it with \`npm pkg set type=module\` once your code is ready for it (or run prosec init in a folder of its own), then run prosec init again`,
      );
    replaced.push('"type" was "commonjs", with no code yet');
  } else if (json["type"] !== undefined && json["type"] !== "module")
    throw new UsageError(
      `package.json says "type": ${JSON.stringify(json["type"])}: generated modules are ES modules, so the project needs "type": "module". Set it with \`npm pkg set type=module\`, then run prosec init again`,
    );
  const scripts = (json["scripts"] ?? {}) as Record<string, string>;
  if (scripts["test"] === NPM_PLACEHOLDER_TEST) replaced.push("npm's placeholder test script replaced");
  const clashes = Object.entries(STARTER_SCRIPTS).filter(
    ([name, command]) =>
      scripts[name] !== undefined &&
      scripts[name] !== command &&
      !(name === "test" && scripts[name] === NPM_PLACEHOLDER_TEST),
  );
  if (clashes.length > 0)
    throw new UsageError(
      `package.json already has the script${clashes.length === 1 ? "" : "s"} ${clashes.map(([name]) => `"${name}"`).join(", ")}: init overwrites nothing (rename ${clashes.length === 1 ? "it" : "them"}, or add prosec's commands by hand: see the README's "Use it in your app")`,
    );
  return { existed: true, replaced, json: { ...json, type: "module", scripts: { ...scripts, ...STARTER_SCRIPTS } } };
}

const CODE_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** A JavaScript or TypeScript file of the project's own (not in node_modules or a dot folder), if any. */
function firstCodeFile(root: string): string | undefined {
  const folders = [""];
  for (let visited = 0; folders.length > 0 && visited < 10_000; visited++) {
    const folder = folders.shift()!;
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== "node_modules" && !entry.name.startsWith(".")) folders.push(relative);
      else if (entry.isFile() && CODE_FILE.test(entry.name)) return relative;
    }
  }
  return undefined;
}

/** An npm package name from the folder's name. */
function packageName(root: string): string {
  const name = basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+/, "");
  return name === "" ? "prose-app" : name;
}

/** Adds to .gitignore the lines it lacks; what it said. */
function ignore(file: string): string {
  const existing = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const lines = new Set((existing ?? "").split("\n").map((line) => line.trim()));
  const missing = IGNORED.filter((entry) => !lines.has(entry) && !lines.has(entry.replace(/\/$/, "")));
  if (missing.length === 0) return "kept .gitignore (it ignores .prose/ already)";
  const prefix =
    existing === undefined || existing === "" || existing.endsWith("\n") ? (existing ?? "") : `${existing}\n`;
  writeFileSync(file, `${prefix}${missing.join("\n")}\n`);
  return `${existing === undefined ? "wrote" : "added to"} .gitignore (${missing.join(", ")}: .prose/ holds the runs)`;
}
