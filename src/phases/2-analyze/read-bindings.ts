/**
 * What a program uses of what it defines, in the code a run can reach (blocks it can call, agents
 * a session names):
 *
 * - the agents a session or `resume:` names (`context: captain` names the agent's memory, by name);
 * - the bindings something reads: a name in an expression, an interpolation, a judgment that sees
 *   it (`**...**` is shown every value-holding binding declared before it, a loop's condition those
 *   of its whole body), an `output` (the program returns its outputs, a block its output).
 *
 * Lowering writes no agent nothing uses, and a binding nothing reads without its name (keeping what
 * computes it, `rt.bind(...)`), instead of code that a linter and `noUnusedLocals` would flag. It
 * errs towards "read": a binding wrongly called read costs an unused name, one wrongly called
 * unread would not compile.
 */
import type * as ast from "../../ast.js";
import { walk } from "../../walk.js";
import type { Analysis, Scope, SymbolInfo } from "./types.js";
import { judgedKinds } from "./visible-values.js";

type Facts = Pick<
  Analysis,
  "program" | "references" | "interpolations" | "scopeOf" | "agentReferences" | "agentValues" | "calledBlocks"
>;

/** Walks the code a run can reach: not the blocks it never calls, nor (with `agents`) the agents no session uses. */
function walkReachable(
  analysis: Facts,
  enter: (node: ast.Node) => void,
  agents?: ReadonlySet<ast.AgentDefinition>,
): void {
  walk(analysis.program, (node) => {
    if (node.kind === "Block" && !analysis.calledBlocks.has(node)) return false;
    if (node.kind === "Agent" && agents !== undefined && !agents.has(node)) return false;
    enter(node);
    return true;
  });
}

export function usedAgents(analysis: Facts): ReadonlySet<ast.AgentDefinition> {
  const used = new Set<ast.AgentDefinition>();
  walkReachable(analysis, (node) => {
    const agent = node.kind === "Identifier" ? analysis.agentReferences.get(node) : undefined;
    if (agent !== undefined && node !== agent.name && !analysis.agentValues.has(node as ast.Identifier))
      used.add(agent);
  });
  return used;
}

export function readBindings(analysis: Facts, agents: ReadonlySet<ast.AgentDefinition>): ReadonlySet<SymbolInfo> {
  const read = new Set<SymbolInfo>();
  const written = new Set<ast.Identifier>();
  const names: ast.Identifier[] = [];
  /** The offset a judgment sees bindings up to, where it is not its own: a loop's condition sees its body. */
  const judgedUpTo = new Map<ast.Discretion, number>();
  const judgments: ast.Discretion[] = [];
  walkReachable(
    analysis,
    (node) => {
      switch (node.kind) {
        case "Identifier":
          names.push(node);
          break;
        case "Placeholder": {
          const symbol = analysis.interpolations.get(node);
          if (symbol) read.add(symbol);
          break;
        }
        case "Binding":
          written.add(node.name);
          break;
        case "Output": {
          const symbol = node.name ? analysis.references.get(node.name) : undefined;
          if (symbol) read.add(symbol);
          if (node.name) written.add(node.name);
          break;
        }
        case "Destructure":
          node.names.forEach((name) => written.add(name));
          break;
        case "Loop":
          if (node.condition)
            walk(node.condition, (child) => {
              if (child.kind === "Discretion") judgedUpTo.set(child, node.loc.end.offset);
            });
          break;
        case "Discretion":
          judgments.push(node);
          break;
        default:
          break;
      }
    },
    agents,
  );
  for (const name of names) {
    const symbol = analysis.references.get(name);
    if (symbol !== undefined && name !== symbol.declaration && !written.has(name)) read.add(symbol);
  }
  let programUpTo = -1;
  let programScope: Scope | undefined;
  for (const judgment of judgments) {
    const upTo = judgedUpTo.get(judgment) ?? judgment.loc.start.offset;
    for (let scope = analysis.scopeOf.get(judgment) ?? null; scope !== null; scope = scope.parent) {
      if (scope.parent !== null) markVisible(scope, upTo, read);
      else {
        // The program's bindings are listed once, up to the furthest any judgment sees.
        programScope = scope;
        programUpTo = Math.max(programUpTo, upTo);
      }
    }
  }
  if (programScope) markVisible(programScope, programUpTo, read);
  return read;
}

function markVisible(scope: Scope, upTo: number, read: Set<SymbolInfo>): void {
  for (const symbol of scope.symbols.values())
    if (judgedKinds.has(symbol.kind) && symbol.declaration.loc.start.offset <= upTo) read.add(symbol);
}
