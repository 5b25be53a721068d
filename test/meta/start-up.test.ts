/**
 * What a command loads before it does anything: the modules its file imports statically, all the way
 * down, in the build users run (dist/). A command that never calls a model must not load the Anthropic
 * SDK's client (about 250 files and a fifth of a second of a CPU), nor DBOS, OpenTelemetry's SDK,
 * ts-morph, prettier or the MCP client: those are imported when a command needs them. A face re-exporting
 * one module that imports the SDK's index was enough to put it under `prosec check`.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { init, parse } from "es-module-lexer";
import { beforeAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

/** Loaded only by the commands (or the code paths) that use them. */
const HEAVY = [
  "@anthropic-ai/sdk",
  "@dbos-inc/dbos-sdk",
  "@modelcontextprotocol/client",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/sdk-trace-node",
  "prettier",
  "ts-morph",
];

/** Each package a module loads statically, with the chain of modules that leads to it. */
function staticPackages(entry: string): Map<string, string[]> {
  const cameFrom = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const packages = new Map<string, string[]>();
  const chain = (file: string): string[] => {
    const files: string[] = [];
    for (let at: string | undefined = file; at !== undefined; at = cameFrom.get(at)) files.unshift(at);
    return files.map((path) => relative(dirname(entry), path));
  };
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const [imports] = parse(readFileSync(file, "utf8"), file);
    for (const { n: specifier, d: dynamic } of imports) {
      // -1: `import ... from` and `export ... from`; a dynamic import() is loaded when it runs.
      if (dynamic !== -1 || specifier === undefined || specifier.startsWith("node:")) continue;
      if (!specifier.startsWith(".")) {
        if (!packages.has(specifier)) packages.set(specifier, [...chain(file), specifier]);
        continue;
      }
      const next = resolve(dirname(file), specifier);
      if (cameFrom.has(next) || !existsSync(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return packages;
}

/** The heavy packages a module loads statically (`allowed` aside): `package <- chain`. */
function heavyLoads(entry: string, allowed: readonly string[] = []): string[] {
  return [...staticPackages(entry)]
    .filter(([specifier]) =>
      HEAVY.some(
        (heavy) => !allowed.includes(heavy) && (specifier === heavy || specifier.startsWith(`${heavy}/index`)),
      ),
    )
    .map(([specifier, chain]) => `${specifier} <- ${chain.slice(0, -1).join(" <- ")}`);
}

beforeAll(() => init);

describe("what a command loads at start", () => {
  it("finds a heavy package behind a chain of re-exports", () => {
    const folder = temporaryFolder("prosec-start-up-");
    mkdirSync(join(folder, "faces"));
    writeFileSync(
      join(folder, "command.js"),
      'import { a } from "./faces/face.js";\nexport const c = () => import("ts-morph");\n',
    );
    writeFileSync(join(folder, "faces/face.js"), 'export { a } from "../leaf.js";\nexport * from "../other.js";\n');
    writeFileSync(
      join(folder, "leaf.js"),
      'import { APIError } from "@anthropic-ai/sdk";\nexport const a = APIError;\n',
    );
    writeFileSync(
      join(folder, "other.js"),
      'import { APIError } from "@anthropic-ai/sdk/core/error";\nexport const b = 1;\n',
    );
    expect(heavyLoads(join(folder, "command.js"))).toEqual([
      "@anthropic-ai/sdk <- command.js <- faces/face.js <- leaf.js",
    ]);
  });

  it("no command loads the model client, DBOS, OpenTelemetry's SDK, ts-morph, prettier or MCP before it runs", () => {
    const cli = join(realpathSync(join(repositoryRoot, "dist")), "src/cli");
    const main = join(cli, "main.js");
    // The command table's modules: main.js imports each one when its command is named.
    const commands = [...readFileSync(main, "utf8").matchAll(/import\("\.\/([\w-]+\.js)"\)/g)].map(
      (match) => match[1]!,
    );
    expect(commands).toEqual(expect.arrayContaining(["check-command.js", "build-command.js", "runs-command.js"]));
    expect(commands.length).toBeGreaterThan(15);
    const loads = [main, ...commands.map((command) => join(cli, command))].flatMap((entry) => heavyLoads(entry));
    expect(loads).toEqual([]);
  });

  it("the DBOS commands load DBOS, and no model client until `prosec worker` runs a program", () => {
    const workerCommands = join(realpathSync(join(repositoryRoot, "dist")), "src/cli/worker-commands.js");
    expect([...staticPackages(workerCommands).keys()]).toContain("@dbos-inc/dbos-sdk");
    expect(heavyLoads(workerCommands, ["@dbos-inc/dbos-sdk"])).toEqual([]);
  });
});
