/**
 * The rooms of the source hold: no import cycle between modules, no cycle between the folders of
 * src/, nothing outside src/cli/ imports the CLI, code outside a compiler phase reaches it only
 * through the phase's index.ts, and src/ reaches runtime/ only through its faces. runtime/'s folders
 * are layers: each imports only its own layer and the ones below it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each module's relative imports (`import type` and re-exports included), as files. */
function importGraph(directory: string): Map<string, string[]> {
  const files = sources(directory);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      const targets = importedFiles
        .filter(({ fileName }) => fileName.startsWith("."))
        .map(({ fileName }) => resolve(dirname(file), fileName.replace(/\.js$/, ".ts")))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** The graph of a directory's modules, with paths relative to it (`cli/main.ts`). */
function relativeGraph(name: string): Map<string, string[]> {
  const directory = join(root, name);
  const graph = importGraph(directory);
  return new Map(
    [...graph].map(([file, targets]) => [
      relative(directory, file),
      targets.map((target) => relative(directory, target)),
    ]),
  );
}

/** The graph of src/'s modules, with paths relative to src/ (`cli/main.ts`). */
function sourceGraph(): Map<string, string[]> {
  return relativeGraph("src");
}

/** The import cycles of a graph, each as the path around it (depth-first search). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === "open") found.push([...stack.slice(stack.indexOf(target)), target]);
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

/**
 * The room a module of src/ lives in: each compiler phase (`phases/2-analyze`), each other folder
 * (`registry`), and each module at the top (`ast.ts`) on its own.
 */
function room(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "phases" && parts.length > 2) return parts.slice(0, 2).join("/");
  return parts.length > 1 ? parts[0]! : file;
}

/** The graph between rooms: an edge wherever a module of one imports a module of another. */
function roomGraph(
  graph: ReadonlyMap<string, readonly string[]>,
  roomOf: (file: string) => string = room,
): Map<string, string[]> {
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    const edges = rooms.get(from) ?? new Set<string>();
    rooms.set(from, edges);
    for (const target of targets) if (roomOf(target) !== from) edges.add(roomOf(target));
  }
  return new Map([...rooms].map(([name, edges]) => [name, [...edges].sort()]));
}

/** Imports of src/cli/ from a module outside it. */
function importsOfCli(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    file.startsWith("cli/") ? [] : targets.filter((target) => target.startsWith("cli/")).map((t) => `${file} -> ${t}`),
  );
}

/** Imports of a phase's modules other than its index.ts (and light.ts), from outside the phase. */
function importsOfPhaseInternals(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets
      .filter((target) => {
        const phase = room(target);
        // light.ts: what a phase offers without loading it (modules that import nothing of the phase).
        const entries = [`${phase}/index.ts`, `${phase}/light.ts`];
        return phase.startsWith("phases/") && room(file) !== phase && !entries.includes(target);
      })
      .map((target) => `${file} -> ${target}`),
  );
}

describe("import cycles", () => {
  it("finds a cycle when there is one", () => {
    const graph = new Map([
      ["/a.ts", ["/b.ts"]],
      ["/b.ts", ["/c.ts"]],
      ["/c.ts", ["/a.ts"]],
      ["/d.ts", ["/a.ts"]],
    ]);
    expect(cycles(graph)).toHaveLength(1);
  });

  it.each(["runtime", "src"])("%s/ has none", (directory) => {
    const found = cycles(importGraph(join(root, directory)));
    expect(found.map((cycle) => cycle.map((file) => relative(root, file)))).toEqual([]);
  });
});

/**
 * The faces of runtime/ that src/ may import: `prosec/runtime` (index.ts), `prosec/testing`
 * (testing/index.ts), the faces for prosec's own CLI (cost.ts: cost bounds and prices; stored-runs.ts
 * and its DBOS side dbos-runs.ts: runs at rest; host.ts: what a host sets up around a run), and the
 * contract both sides of the compiler share: vocabulary.ts (the language's words, which analysis
 * checks and the runtime obeys) and types.ts (types only, no code).
 */
const RUNTIME_FACES = [
  "index.ts",
  "testing/index.ts",
  "cost.ts",
  "stored-runs.ts",
  "dbos-runs.ts",
  "host.ts",
  "vocabulary.ts",
  "types.ts",
].map((face) => `runtime/${face}`);

/** Each import of a runtime/ module from a module of `files`, as `src/x.ts -> runtime/y.ts`. */
function runtimeImports(files: ReadonlyMap<string, string>): string[] {
  return [...files].flatMap(([file, text]) =>
    ts
      .preProcessFile(text, true, true)
      .importedFiles.filter(({ fileName }) => fileName.startsWith("."))
      .map(({ fileName }) => relative(root, resolve(dirname(join(root, file)), fileName.replace(/\.js$/, ".ts"))))
      .filter((target) => target.startsWith("runtime/"))
      .map((target) => `${file} -> ${target}`),
  );
}

/** The imports among them that pass the faces. */
function pastTheFaces(files: ReadonlyMap<string, string>): string[] {
  return runtimeImports(files).filter((edge) => !RUNTIME_FACES.includes(edge.split(" -> ")[1]!));
}

describe("src/ and runtime/", () => {
  it("finds an import past the faces when there is one", () => {
    const planted = new Map([
      ["src/cli/x.ts", 'import { a } from "../../runtime/cost.js";\nimport { b } from "../../runtime/run/bound.js";'],
      ["src/y.ts", 'import type { C } from "../runtime/types.js";\nexport { d } from "../runtime/durable/fork.js";'],
    ]);
    expect(pastTheFaces(planted)).toEqual([
      "src/cli/x.ts -> runtime/run/bound.ts",
      "src/y.ts -> runtime/durable/fork.ts",
    ]);
  });

  it("src/ imports runtime/ only through its faces", () => {
    const files = new Map(
      sources(join(root, "src")).map((file) => [relative(root, file), readFileSync(file, "utf8")] as const),
    );
    expect(runtimeImports(files).length).toBeGreaterThan(50);
    expect(pastTheFaces(files)).toEqual([]);
  });
});

describe("the rooms of src/", () => {
  // Two folders whose modules import each other, with no module cycle: what the folder check is for.
  const tangled = new Map([
    ["registry/project.ts", ["project/files.ts"]],
    ["project/build.ts", ["registry/lockfile.ts", "cli/exit-codes.ts", "phases/2-analyze/cost/poly.ts"]],
    ["project/files.ts", []],
    ["registry/lockfile.ts", []],
    ["cli/exit-codes.ts", []],
    ["cli/main.ts", ["project/build.ts", "phases/2-analyze/index.ts"]],
    ["phases/2-analyze/index.ts", ["phases/2-analyze/cost/poly.ts"]],
    ["phases/2-analyze/cost/poly.ts", []],
    ["phases/3-transform/index.ts", ["phases/2-analyze/cost/poly.ts"]],
  ]);

  it("finds a folder cycle, an import of src/cli/ and a reach into a phase when there are some", () => {
    expect(cycles(tangled)).toEqual([]);
    expect(cycles(roomGraph(tangled))).toEqual([
      ["cli", "project", "cli"],
      ["project", "registry", "project"],
    ]);
    expect(importsOfCli(tangled)).toEqual(["project/build.ts -> cli/exit-codes.ts"]);
    expect(importsOfPhaseInternals(tangled)).toEqual([
      "project/build.ts -> phases/2-analyze/cost/poly.ts",
      "phases/3-transform/index.ts -> phases/2-analyze/cost/poly.ts",
    ]);
  });

  it("has no cycle between its folders (each phase and each top-level module a room of its own)", () => {
    const graph = sourceGraph();
    expect(roomGraph(graph).size).toBeGreaterThan(10);
    expect(cycles(roomGraph(graph))).toEqual([]);
  });

  it("nothing outside src/cli/ imports src/cli/", () => {
    const graph = sourceGraph();
    expect([...graph.keys()].filter((file) => file.startsWith("cli/")).length).toBeGreaterThan(10);
    expect(importsOfCli(graph)).toEqual([]);
  });

  it("code outside a phase reaches it only through the phase's index.ts or light.ts", () => {
    expect(importsOfPhaseInternals(sourceGraph())).toEqual([]);
  });

  it("no phase imports src/registry/ or src/project/", () => {
    const graph = roomGraph(sourceGraph());
    const phases = [...graph].filter(([name]) => name.startsWith("phases/"));
    expect(phases.map(([name]) => name)).toEqual(["phases/1-parse", "phases/2-analyze", "phases/3-transform"]);
    for (const [name, edges] of phases)
      expect({ name, edges: edges.filter((edge) => edge === "registry" || edge === "project") }).toEqual({
        name,
        edges: [],
      });
  });
});

/**
 * runtime/'s layers, lowest first. A room (a folder of runtime/, or a module at its top) imports
 * rooms of its own layer and of lower layers only; with no cycle between rooms, that keeps every
 * layer usable without the ones above it (docs/architecture.md, runtime/README.md).
 */
const RUNTIME_LAYERS: readonly (readonly [layer: string, rooms: readonly string[]])[] = [
  ["contract", ["types", "types.ts", "vocabulary.ts", "errors.ts"]],
  [
    "leaves",
    ["values", "tools", "telemetry", "abortable-sleep.ts", "signals.ts", "make-directory.ts", "json-problem.ts"],
  ],
  ["step addresses", ["address"]],
  ["model", ["model"]],
  ["cost", ["cost"]],
  ["store", ["durable", "dbos"]],
  ["kernel", ["kernel"]],
  ["steps", ["steps"]],
  ["run", ["run"]],
  // index.ts: prosec/runtime (deprecated.ts: its old names, until 0.4); testing: prosec/testing;
  // cost.ts, stored-runs.ts, dbos-runs.ts, host.ts: the faces src/ uses.
  ["faces", ["index.ts", "deprecated.ts", "testing", "cost.ts", "stored-runs.ts", "dbos-runs.ts", "host.ts"]],
];

/** The room a module of runtime/ lives in: its top folder (`kernel`), or itself at the top (`types.ts`). */
function runtimeRoom(file: string): string {
  return file.split("/")[0]!;
}

/** The index of a room's layer in `layers`, or -1. */
function layerOf(layers: typeof RUNTIME_LAYERS, name: string): number {
  return layers.findIndex(([, rooms]) => rooms.includes(name));
}

/** Rooms with no layer, and each import of a room from a higher layer (`model -> kernel`). */
function layerBreaches(rooms: ReadonlyMap<string, readonly string[]>, layers: typeof RUNTIME_LAYERS): string[] {
  return [...rooms].flatMap(([name, edges]) => {
    const own = layerOf(layers, name);
    if (own === -1) return [`${name}: in no layer`];
    return edges
      .filter((edge) => layerOf(layers, edge) > own || layerOf(layers, edge) === -1)
      .map((edge) => `${name} -> ${edge}`);
  });
}

describe("the layers of runtime/", () => {
  it("finds a cycle, an import from a higher layer and a room in no layer when there are some", () => {
    const layers = [
      ["contract", ["types.ts"]],
      ["store", ["durable"]],
      ["run", ["run"]],
    ] as const;
    const tangled = new Map([
      ["types.ts", []],
      ["durable/journal.ts", ["types.ts", "run/events.ts"]],
      ["run/core.ts", ["durable/journal.ts", "extra/thing.ts"]],
      ["run/events.ts", ["types.ts"]],
      ["extra/thing.ts", []],
    ]);
    const rooms = roomGraph(tangled, runtimeRoom);
    expect(cycles(rooms)).toEqual([["durable", "run", "durable"]]);
    expect(layerBreaches(rooms, layers)).toEqual(["durable -> run", "run -> extra", "extra: in no layer"]);
  });

  it("has no two-way folder pair and no cycle between its rooms", () => {
    const rooms = roomGraph(relativeGraph("runtime"), runtimeRoom);
    expect(rooms.size).toBeGreaterThan(15);
    expect(cycles(rooms)).toEqual([]);
  });

  it("each room is in a layer and imports only its own layer and lower ones", () => {
    const rooms = roomGraph(relativeGraph("runtime"), runtimeRoom);
    expect(layerBreaches(rooms, RUNTIME_LAYERS)).toEqual([]);
  });
});
