/**
 * Definitions are hoisted: agents, blocks, `use` imports and skills are known before the walk,
 * so a block may be called, and an agent used, above where it is written.
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m, quote } from "../../diagnostics/messages.js";
import { isLocalUse, isRemoteUse } from "../../references.js";
import { walk } from "../../walk.js";
import type { ProgramInterface } from "./rules/index.js";

export interface ImportEntry {
  readonly statement: ast.UseStatement;
  /** The imported program's interface; undefined when it could not be read. */
  readonly program: ProgramInterface | undefined;
}

export class Definitions {
  readonly agents = new Map<string, ast.AgentDefinition>();
  readonly blocks = new Map<string, ast.BlockDefinition>();
  readonly imports = new Map<string, ImportEntry>();
  /** Skill names registered by `import "skill" from ...` and by `use`. */
  readonly skills = new Set<string>();
  /** Names that statements skipped for syntax errors would have bound, by namespace: reading them is no error. */
  private readonly recovered = new Set<string>();

  constructor(
    program: ast.Program,
    private readonly resolveImport: ((path: string) => ProgramInterface | undefined) | undefined,
    private readonly report: (diagnostic: Diagnostic) => void,
  ) {
    // Definitions stand at the top of the program or of a block (one that is defined twice included).
    walk(program, (node) => {
      this.define(node);
      return node.kind === "Program" || node.kind === "Block";
    });
    walk(program, (node) => {
      if (node.kind !== "Recovered") return true;
      for (const { namespace, name } of node.names) {
        this.recovered.add(`${namespace} ${name}`);
        // `import "skill"` and `use` register skill names.
        if (namespace === "skill" || namespace === "program") this.skills.add(name);
      }
      return true;
    });
  }

  /** Whether a statement skipped for a syntax error would have bound `name` (so a read of it is no error). */
  isRecovered(namespace: ast.RecoveredNamespace, name: string): boolean {
    return this.recovered.size > 0 && this.recovered.has(`${namespace} ${name}`);
  }

  private define(node: ast.Node): void {
    switch (node.kind) {
      case "Agent": {
        const first = this.agents.get(node.name.name);
        if (first) this.report(m.duplicateAgent(node.name.loc, node.name.name, first.name.loc));
        else this.agents.set(node.name.name, node);
        return;
      }
      case "Block": {
        const first = this.blocks.get(node.name.name);
        if (first) this.report(m.duplicateBlock(node.name.loc, node.name.name, first.name.loc));
        else this.blocks.set(node.name.name, node);
        return;
      }
      case "Import":
        this.skills.add(node.skill.value);
        return;
      case "Use":
        return this.use(node);
    }
  }

  /** A `use` is imported under its alias, or the file's name: a local path, a registry reference or a URL. */
  private use(statement: ast.UseStatement): void {
    const path = statement.source.value;
    if (path.trim() === "") {
      this.report(m.emptyUsePath(statement.source.loc));
      return;
    }
    if (!isLocalUse(path) && !isRemoteUse(path)) {
      this.report(m.invalidUsePath(statement.source.loc, path));
      return;
    }
    const name = importName(statement);
    this.skills.add(name);
    const first = [...this.imports.values()].find(
      (entry) => entry.statement.source.value === path || importName(entry.statement) === name,
    );
    if (first) {
      this.report(m.duplicateUse(statement.loc, quote(path), first.statement.loc));
      return;
    }
    this.imports.set(name, { statement, program: this.resolveImport?.(path) });
  }
}

function importName(statement: ast.UseStatement): string {
  return (
    statement.alias?.name ??
    statement.source.value
      .replace(/\.prose$/, "")
      .split("/")
      .pop() ??
    statement.source.value
  );
}
