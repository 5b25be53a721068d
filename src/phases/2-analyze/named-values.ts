/**
 * The statements that give a value a name, and what they make of the program's interface: inputs
 * (parameters when they come before anything runs, asked mid-program otherwise), outputs and
 * bindings (`let`, `const`, assignment), with the duplicates and `const` reassignments they can make.
 * The analyzer visits the values; this decides what each name binds to.
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";
import type { Bindings } from "./bindings.js";
import type { MutableSymbol } from "./scope.js";
import type { Scope } from "./types.js";

/** Constants in compiler.md that real programs reassign anyway (DIALECT.md, "Parallel: ..."): a warning. */
const constantKinds: ReadonlyMap<MutableSymbol["kind"], "loop variable" | "block parameter"> = new Map([
  ["loop-item", "loop variable"],
  ["loop-index", "loop variable"],
  ["param", "block parameter"],
] as const);

export class NamedValues {
  /** Inputs declared at the top before anything runs: the program's parameters. */
  readonly parameters: ast.InputDeclaration[] = [];
  /** Every other input: asked mid-program. */
  readonly runtimeInputs: ast.InputDeclaration[] = [];
  /** The program's outputs (outputs set inside a block are the block's). */
  readonly outputs: string[] = [];
  private readonly inputDeclarations = new Map<string, ast.Identifier>();
  private readonly outputDeclarations = new Map<Scope, Map<string, ast.Identifier>>();
  /** Bindings that hold the result of a program call, for `result.output` checks. */
  private readonly programResults = new Map<MutableSymbol, string>();

  constructor(
    private readonly bindings: Bindings,
    private readonly report: (diagnostic: Diagnostic) => void,
  ) {}

  /** The program called for the value `identifier` reads, when it holds a program call's result. */
  programResultOf(identifier: ast.Identifier): string | undefined {
    const symbol = this.bindings.references.get(identifier);
    return symbol && this.programResults.get(symbol);
  }

  /** An input at the top before anything runs (a duplicate too: `input` reports it). */
  parameter(statement: ast.InputDeclaration): void {
    this.parameters.push(statement);
  }

  /**
   * Registers an input; false (reported) when its name was already an input, and nothing more of
   * it is to be analysed. Call `declareInput` once its prompt, default and modifiers are.
   */
  input(statement: ast.InputDeclaration): boolean {
    const first = this.inputDeclarations.get(statement.name.name);
    if (first) {
      this.report(m.duplicateInput(statement.name.loc, statement.name.name, first.loc));
      return false;
    }
    this.inputDeclarations.set(statement.name.name, statement.name);
    // Any input that is not a parameter (later at top level, or nested anywhere) is asked mid-program.
    if (!this.parameters.includes(statement)) this.runtimeInputs.push(statement);
    return true;
  }

  declareInput(statement: ast.InputDeclaration): void {
    this.bindings.declare("input", statement.name);
  }

  /** An output whose value is analysed. */
  output(statement: ast.OutputStatement): void {
    if (!statement.name) return;
    const name = statement.name;
    const declared = this.outputDeclarations.get(this.bindings.scope) ?? new Map<string, ast.Identifier>();
    this.outputDeclarations.set(this.bindings.scope, declared);
    const first = declared.get(name.name);
    if (first) {
      this.report(m.duplicateOutput(name.loc, name.name, first.loc));
      return;
    }
    declared.set(name.name, name);
    if (!this.bindings.scope.enclosingBlock() && !this.outputs.includes(name.name)) this.outputs.push(name.name);
    if (!this.bindings.bindHoisted(name)) {
      // Setting an output again (in another branch, say) updates the same binding.
      const existing = this.bindings.scope.lookup(name.name, name.loc.start.offset);
      if (existing && existing.kind !== "const") this.bindings.reassign(name, existing);
      else this.bindings.declare("output", name);
    }
    this.recordProgramResult(name, statement.value);
  }

  /** A binding whose value is analysed. */
  binding(statement: ast.BindingStatement): void {
    const name = statement.name;
    if (!this.bindings.bindHoisted(name)) {
      const existing = statement.declaration ? undefined : this.bindings.scope.lookup(name.name, name.loc.start.offset);
      if (existing?.kind === "const") this.report(m.constReassignment(name.loc, name.name, existing.declaration.loc));
      const constant = existing && constantKinds.get(existing.kind);
      if (constant) this.report(m.constantReassigned(name.loc, name.name, constant, existing.declaration.loc));
      if (existing) this.bindings.reassign(name, existing);
      else this.bindings.declare(statement.declaration ?? "assigned", name, statement);
    }
    this.recordProgramResult(name, statement.value);
  }

  private recordProgramResult(name: ast.Identifier, value: ast.Expression): void {
    const symbol = this.bindings.references.get(name);
    if (symbol && value.kind === "ProgramCall") this.programResults.set(symbol, value.callee.name);
  }
}
