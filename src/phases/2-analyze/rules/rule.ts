/**
 * A rule is one self-contained check (graphql-js's `validation/rules/*`): handlers for the node
 * kinds it looks at, called by the analyzer once the node's names are resolved.
 */
import type * as ast from "../../../ast.js";
import type { Diagnostic } from "../../../diagnostics/diagnostic.js";

/** The imported program's interface, for checking calls to it. */
export interface ProgramInterface {
  readonly inputs: readonly string[];
  /** Inputs with a default (`input name: <value>`): a call may leave them out. */
  readonly optionalInputs?: readonly string[];
  readonly outputs: readonly string[];
}

/** The servers a `.mcp.json` declares, for `permissions: mcp:` (check never starts them). */
export interface DeclaredMcpServers {
  /** The `.mcp.json` read, as shown in messages; undefined when none was found above the program. */
  readonly file: string | undefined;
  readonly names: readonly string[];
  /** Why the file could not be read (not JSON, a server without a command). */
  readonly problem?: string;
}

/** What rules may ask of the analysis. */
export interface RuleContext {
  readonly agents: ReadonlyMap<string, ast.AgentDefinition>;
  readonly blocks: ReadonlyMap<string, ast.BlockDefinition>;
  /** Skill names registered by `import` and `use`. */
  readonly skills: ReadonlySet<string>;
  /** The MCP servers declared for this program; undefined when the caller did not look (an in-memory check). */
  readonly mcpServers: DeclaredMcpServers | undefined;
  /** The skill folders installed for the project; undefined when the caller did not look. */
  readonly installedSkills: readonly string[] | undefined;
  /** The interface of the program imported under `name`, when it could be read. */
  importedProgram(name: string): ProgramInterface | undefined;
  /** The name of the imported program whose call result the binding `identifier` refers to holds. */
  programResultOf(identifier: ast.Identifier): string | undefined;
  report(diagnostic: Diagnostic): void;
  /** Whether a `catch` / `finally` clause of this `try` was written but skipped for a syntax error. */
  clauseSkipped(node: ast.TryExpression): boolean;
}

export type Rule = { readonly [K in ast.NodeKind]?: (node: ast.NodeOfKind<K>, context: RuleContext) => void };
