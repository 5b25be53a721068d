/**
 * Lowering: an analysed program → the source of a TypeScript module (unformatted; `format` runs
 * prettier over it).
 *
 * THE GENERATED-CODE CONTRACT (what users may rely on, stable across prosec versions):
 * - The module's path is `foo.prose.ts` next to `foo.prose`, or mirrored under `--out-dir`.
 * - Line 1 says the file is generated and names its source; line 2 is `// prosec-input: <sha256>`,
 *   the hash of what it was built from (compiler version, source, imported sources): builds skip
 *   inputs whose hash is unchanged.
 * - It imports only from `prosec/runtime` and from the generated modules of local `use` imports.
 * - It exports `type Inputs` (the program's parameters: top-level inputs before any executable
 *   statement, by their `.prose` names, each a `string` (an input with a default: optional, the
 *   default's type); then every input asked mid-program as an
 *   optional field: an answer given ahead), `type Outputs` (top-level `output` names, each typed by
 *   what the program binds to it: `string` for a session, `boolean` for a judgment, a literal's
 *   shape, a called program's `Outputs`, a union where it is bound more than once, `| null` where
 *   it may stay unbound, `Value` where the runtime extracts structure from text; see
 *   `2-analyze/value-types.ts`), `async function run(inputs, options?)`, and as default export the
 *   frozen `ProgramInfo` (name, source path, sourceHash, compilerVersion, inputs, outputs, the
 *   static cost bound `cost`).
 *   A program without outputs resolves to `{}` and hands the runtime its final result (the value
 *   of its last top-level statement that produced one): a `use` call of it returns that.
 * - Every runtime call carries the `{ line, column }` of the `.prose` construct it came from.
 * NOT part of the contract: the TypeScript names of bindings, agents and blocks (hyphens become
 * camelCase, collisions get a `$` suffix), temporaries (`$`-prefixed), statement layout.
 */
import { type Analysis, inputQuestion } from "../2-analyze/index.js";
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { isLocalUse } from "../../references.js";
import type * as ast from "../../ast.js";
import type { ProgramCost } from "../../../runtime/cost.js";
import {
  commentText,
  dataLiteral,
  lineCommentText,
  propertyKey,
  recordField,
  stringLiteral,
  templateChunk,
} from "./literals.js";
import { walk } from "../../walk.js";
import { assertIds } from "./assert-ids.js";
import { b, print } from "./builders.js";
import type { Finish } from "./lowered.js";
import { Lowering, type RuntimeHelper } from "./lowering.js";
import type { UnformattedModule } from "./format.js";
import { NameTable, type Namespace, type RuntimeImport } from "./names.js";
import { namesType } from "./names-type.js";
import { bodyInParts, partThreshold } from "./parts.js";
import { settingsFields } from "./settings.js";
import { programState } from "./state.js";
import { visitors } from "./visitors/index.js";
import { propertyLowering } from "./visitors/strings.js";
import { alwaysGivesValue, finalResultInBranches, lastValueIndex } from "./visitors/statement-list.js";

export { format, PRETTIER_OPTIONS, type UnformattedModule } from "./format.js";
export { stringLiteral } from "./literals.js";

export interface LowerOptions {
  /** The source path as shown to users, `/`-separated and relative (never absolute). */
  readonly source: string;
  readonly sourceText: string;
  readonly compilerVersion: string;
  /** The build's input hash, written on line 2 (see the contract above). */
  readonly inputHash: string;
  /** The program's static cost bound, written into its metadata. */
  readonly cost?: ProgramCost;
  /** The module a `use` imports where it is not `moduleSpecifier`'s (a vendored program's, from `build`). */
  readonly importSpecifiers?: ReadonlyMap<string, string>;
  /** `prosec eval`: the program's asserts are scored checks that do not stop it (DIALECT.md, "Evals"). */
  readonly scoreAsserts?: boolean;
}

/** Characters of unformatted code prettier formats at once in a large program (its cost grows faster than the text). */
const pieceSize = 64_000;

/** The runtime's exports every module uses, then the helpers in the order they are imported. */
// Typed as runtime imports too: a helper missing from `runtimeImports` (names.ts) is a type error here.
const alwaysImported: readonly RuntimeImport[] = ["defineProgram", "startRun"];
const helperOrder: readonly (RuntimeHelper & RuntimeImport)[] = [
  "text",
  "add",
  "subtract",
  "multiply",
  "divide",
  "equals",
  "compare",
  "bindingsInOrder",
];

/** The TypeScript module for a program without errors. */
export function lower(analysis: Analysis, options: LowerOptions): UnformattedModule {
  const names = new NameTable(declaredNames(analysis));
  const dynamicAgents = new Set(
    [...analysis.agents.values()].filter((agent) => isDynamic(agent, analysis)).map((agent) => agent.name.name),
  );
  const lowering = new Lowering(
    analysis,
    names,
    dynamicAgents,
    visitors,
    options.scoreAsserts === true ? assertIds(analysis.program) : undefined,
  );

  const staticAgents: string[] = [];
  const localAgents: string[] = [];
  const agents = [...analysis.usedAgents];
  for (const agent of agents.sort((a, b) => a.loc.start.offset - b.loc.start.offset)) {
    const fields = [
      `name: ${stringLiteral(agent.name.name)}`,
      ...settingsFields(agent.properties, propertyLowering(programState(), lowering)),
    ].join(", ");
    const name = names.get("agent", agent.name.name);
    // Properties that take a step (a field read by the model) take it where the session runs: its handle.
    const takesHandle = namesType(fields, "rt");
    if (takesHandle) lowering.agentsTakingHandle.add(agent.name.name);
    if (dynamicAgents.has(agent.name.name))
      localAgents.push(
        `const ${name} = async (${takesHandle ? "rt: Runtime" : ""}): Promise<AgentDefinition> => ({ ${fields} });`,
      );
    else staticAgents.push(`const ${name}: AgentDefinition = { ${fields} };`);
  }

  const programScope = analysis.scopes.get(analysis.program)!;
  const outputs = analysis.outputs.map((output) => {
    const symbol = programScope.symbols.get(output);
    const value = symbol ? lowering.symbolName(symbol) : "null";
    return recordField(output, value);
  });
  // A program without outputs gives its runtime its final result: the value of its last top-level
  // statement that produced one (what a `use` caller receives).
  const final = analysis.outputs.length === 0 ? lowering.temporary("final") : undefined;
  const finish: Finish | undefined = final === undefined ? undefined : { kind: "assign", target: final };
  const declareAhead = [...lowering.promoted];
  const statements = analysis.program.body;
  const inParts = statements.length > partThreshold;
  // The final result is declared where the last statement gives it (a straight body), or ahead when
  // the parts assign it; a program none of whose statements gives a value gives `null`.
  let finalDeclaration: string[] = [];
  let finalValue = final;
  let programExits = false;
  // What the end of the run body does; a top-level `return` does it with the outputs set so far, and
  // with the final result the program has at that point (a straight body gives it only at its end).
  const exitWith = (value: string | undefined): string[] => [
    ...(value === undefined ? [] : [`rt.finalResult(${value});`]),
    `return { ${outputs.join(", ")} };`,
  ];
  let body: (readonly string[])[];
  if (inParts) {
    body = bodyInParts(statements, lowering, declareAhead, exitWith(final), finish);
    if (final !== undefined) finalDeclaration = [print(b.let(final, "Value", "null"))];
  } else {
    const lines = lowering.statements(statements, programState(exitWith(final === undefined ? undefined : "null")), {
      scope: analysis.program,
      declareAhead,
      ...(finish === undefined ? {} : { finish, finishLastValue: true }),
    });
    // A value statement at top level always assigns it before the branches can: no `null` to start with.
    if (final !== undefined && finalResultInBranches(statements))
      finalDeclaration = [
        print(
          lastValueIndex(statements) >= 0 || alwaysGivesValue(statements)
            ? b.let(final, "Value")
            : b.let(final, "Value", "null"),
        ),
      ];
    // A program that ends by raising an error (or returning) never reaches its end: nothing reads the final result.
    else if (final !== undefined && lines.exits) lines.dropFinish(final);
    else if (final !== undefined && !lines.declareFinish(final)) finalValue = "null";
    if (lines.exits) {
      finalValue = undefined;
      programExits = true;
    }
    body = [lines.statements];
  }

  const outputType = (output: string): string => {
    const symbol = programScope.symbols.get(output);
    return symbol ? lowering.typeOf(symbol) : "null";
  };
  const imports = [...analysis.imports].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const frame = lowering.programBindings.declaration(
    (symbol) => lowering.symbolName(symbol),
    () => lowering.helper("bindingsInOrder"),
  );
  const runBody = [localAgents, finalDeclaration, frame, ...body, programExits ? [] : exitWith(finalValue)].filter(
    (lines) => lines.length,
  );
  const runFunction = (code: string) =>
    [
      ...staticAgents,
      "",
      `export async function run(inputs: Inputs${analysis.parameters.length === 0 ? emptyInputs(analysis) : ""}, options?: RunOptions): Promise<Outputs> {`,
      "return startRun(program, inputs, options, async (rt) => {",
      code,
      "});",
      "}",
    ].join("\n");

  const imported = [...alwaysImported, ...helperOrder.filter((helper) => lowering.helpers.has(helper))];
  const inputsType = objectType(
    [...analysis.parameters, ...analysis.runtimeInputs].map((input) =>
      inputField(input, analysis.runtimeInputs.includes(input), lowering),
    ),
  );
  const outputsType = objectType(
    analysis.outputs.map((output) => `readonly ${propertyKey(output)}: ${outputType(output)};`),
  );
  const types: RuntimeImport[] = [
    ...(agents.length > 0 ? (["AgentDefinition"] as const) : []),
    "RunOptions",
    // The handle parameter of a block function or an agent built per session.
    ...(namesType(runBody.flat().join("\n"), "Runtime") ? (["Runtime"] as const) : []),
    ...(namesType([...staticAgents, ...runBody.flat(), inputsType, outputsType].join("\n"), "Value")
      ? (["Value"] as const)
      : []),
  ];
  const moduleText = (run: string) =>
    [
      `// Generated by prosec from ${lineCommentText(options.source)}. Do not edit: change the .prose file and run \`prosec build\`.`,
      `// prosec-input: ${options.inputHash}`,
      `import { ${[...imported, ...types.map((type) => `type ${type}`)].join(", ")} } from "prosec/runtime";`,
      ...imports.map(
        ([name, use]) =>
          `import * as ${names.get("value", name)} from ${stringLiteral(options.importSpecifiers?.get(use.source.value) ?? moduleSpecifier(use.source.value))};`,
      ),
      "",
      `export type Inputs = ${inputsType};`,
      `export type Outputs = ${outputsType};`,
      "",
      `const program = defineProgram(${programInfo(
        analysis,
        options,
        imports.map(([name]) => [name, names.get("value", name)] as const),
      )});`,
      "",
      runFunction(run),
      "",
      "export default program;",
      "",
    ].join("\n");
  const code = moduleText(runBody.flat().join("\n"));
  if (!inParts) return { code };
  const marker = unusedName("$runBody", code);
  // Built only when the module is formatted: `prosec run` never formats.
  return { code, split: () => ({ outline: moduleText(`${marker};`), marker, pieces: piecesOf(runBody) }) };
}

/** An object type of these fields; with none, `Record<string, never>` (`{}` would admit any value but null). */
function objectType(fields: readonly string[]): string {
  return fields.length === 0 ? "Record<string, never>" : `{ ${fields.join(" ")} }`;
}

/** The module a `use "./other.prose"` imports: the generated module next to that program. */
export function moduleSpecifier(usePath: string): string {
  return `${usePath.endsWith(".prose") ? usePath : `${usePath}.prose`}.js`;
}

/** `base`, or `base2`, `base3`, ...: the first that occurs nowhere in `code` (a marker nothing else can match). */
function unusedName(base: string, code: string): string {
  let name = base;
  for (let count = 2; code.includes(name); count++) name = `${base}${count}`;
  return name;
}

/** The run body's statements, grouped into pieces of about `pieceSize` characters for prettier. */
function piecesOf(statements: readonly (readonly string[])[]): string[] {
  const pieces: string[] = [];
  let piece: string[] = [];
  let size = 0;
  for (const lines of statements) {
    const text = lines.join("\n");
    if (piece.length > 0 && size + text.length > pieceSize) {
      pieces.push(piece.join("\n"));
      piece = [];
      size = 0;
    }
    piece.push(text);
    size += text.length;
  }
  if (piece.length > 0) pieces.push(piece.join("\n"));
  return pieces;
}

/** `imported`: each `use`'s alias and the name its module is imported as. */
function programInfo(
  analysis: Analysis,
  options: LowerOptions,
  imported: ReadonlyArray<readonly [string, string]>,
): string {
  const name = options.source
    .split("/")
    .pop()!
    .replace(/\.prose$/, "");
  const inputs = [...analysis.parameters, ...analysis.runtimeInputs].map((input) => {
    const discretion = input.prompt?.kind === "Discretion" ? ", discretion: true" : "";
    const optional = input.default !== null ? ", hasDefault: true" : "";
    const midProgram = analysis.runtimeInputs.includes(input) ? ", midProgram: true" : "";
    return `{ name: ${stringLiteral(input.name.name)}, prompt: ${stringLiteral(inputQuestion(input))}${discretion}${optional}${midProgram} }`;
  });
  return `{
    name: ${stringLiteral(name)},
    source: ${stringLiteral(options.source)},
    sourceHash: ${stringLiteral(createHash("sha256").update(options.sourceText).digest("hex"))},
    compilerVersion: ${stringLiteral(options.compilerVersion)},
    inputs: [${inputs.join(", ")}],
    outputs: [${analysis.outputs.map(stringLiteral).join(", ")}],${usesField(imported)}
    text: \`${templateChunk(options.sourceText)}\`,${options.cost === undefined ? "" : `\n    cost: ${dataLiteral(options.cost)},`}${skillFolders(analysis, options.source)}
  }`;
}

/**
 * `uses`: the programs this one calls, by alias, so that a resumed run sees an edit of any of them
 * (a run folder records their hashes and texts, docs/resume.md). Absent for a program that calls none.
 */
function usesField(imported: ReadonlyArray<readonly [string, string]>): string {
  if (imported.length === 0) return "";
  return `\n    uses: { ${imported.map(([alias, module]) => `${propertyKey(alias)}: ${module}.default`).join(", ")} },`;
}

/**
 * `import "name" from "./folder"`: a local path is that skill's folder, written relative to where the
 * program was compiled from (its source path's folder joined with the path); other sources only
 * register the name. Nothing when the program imports no local skill.
 */
function skillFolders(analysis: Analysis, source: string): string {
  const entries = analysis.program.body.flatMap((statement) =>
    statement.kind === "Import" && isLocalUse(statement.source.value)
      ? [
          `${stringLiteral(statement.skill.value)}: ${stringLiteral(posix.join(posix.dirname(source), statement.source.value))}`,
        ]
      : [],
  );
  return entries.length === 0 ? "" : `\n    skillFolders: { ${entries.join(", ")} },`;
}

/** A field of `Inputs`: required for a parameter, optional for an input asked mid-program (an answer given ahead). */
/**
 * The default of `inputs` when every input is optional. To TypeScript `{}` already has the members of
 * `Object.prototype`, so it is no `Inputs` when an input shares a name with one (`input constructor`).
 */
function emptyInputs(analysis: Analysis): string {
  const members = Object.getOwnPropertyNames(Object.prototype);
  return analysis.runtimeInputs.some((input) => members.includes(input.name.name)) ? " = {} as Inputs" : " = {}";
}

function inputField(input: ast.InputDeclaration, midProgram: boolean, lowering: Lowering): string {
  const type = input.default === null ? "string" : lowering.expressionType(input.default);
  return `/** ${commentText(inputQuestion(input))} */ readonly ${propertyKey(input.name.name)}${midProgram || input.default !== null ? "?" : ""}: ${type};`;
}

function declaredNames(analysis: Analysis): Array<readonly [Namespace, string]> {
  const names: Array<readonly [Namespace, string]> = [];
  for (const scope of analysis.scopes.values()) {
    for (const symbol of scope.symbols.values()) names.push(["value", symbol.name]);
  }
  for (const name of analysis.imports.keys()) names.push(["value", name]);
  for (const name of analysis.agents.keys()) names.push(["agent", name]);
  for (const name of analysis.blocks.keys()) names.push(["block", name]);
  return names;
}

/** An agent whose properties read bindings (interpolated prompts): built when a session uses it. */
function isDynamic(agent: ast.AgentDefinition, analysis: Analysis): boolean {
  let dynamic = false;
  walk(agent, (node) => {
    if (node.kind === "Identifier" && node !== agent.name && analysis.references.has(node)) dynamic = true;
    if (node.kind === "Placeholder" && analysis.interpolations.has(node)) dynamic = true;
    return !dynamic;
  });
  return dynamic;
}
