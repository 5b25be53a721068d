/**
 * What the names that are not bindings refer to. Agents, blocks and `use`d programs each live in
 * one program-wide namespace, so a name means the definition the analysis filed under it; a
 * program's inputs and outputs are named by the calls that pass them and the results read from.
 * Built from the analysis' own tables once the walk is over.
 */
import type { BlockDefinition, Identifier, UseStatement } from "../../ast.js";
import type { Analysis, NameTargets, ProgramReference, Reachability, SymbolInfo } from "./types.js";

export function nameTargets(analysis: Omit<Analysis, keyof NameTargets | "typed" | Reachability>): NameTargets {
  const agentReferences = new Map(analysis.agentValues);
  const blockReferences = new Map<Identifier, BlockDefinition>();
  const programReferences = new Map<Identifier, ProgramReference>();
  /** Bindings that hold the result of a program call. */
  const results = new Map<SymbolInfo, UseStatement>();
  // Every statement and expression the analysis visited, in the order it did.
  const nodes = [...analysis.scopeOf.keys()];
  for (const node of nodes) {
    switch (node.kind) {
      case "Agent":
        agentReferences.set(node.name, node);
        break;
      case "Block":
        blockReferences.set(node.name, node);
        break;
      case "Session":
      case "Resume": {
        const agent = node.agent && analysis.agents.get(node.agent.name);
        if (agent) agentReferences.set(node.agent!, agent);
        break;
      }
      case "DoCall": {
        const block = analysis.blocks.get(node.name.name);
        if (block) blockReferences.set(node.name, block);
        break;
      }
      case "Use":
        if (node.alias && analysis.imports.get(node.alias.name) === node)
          programReferences.set(node.alias, { use: node, part: "program" });
        break;
      case "ProgramCall": {
        const use = analysis.imports.get(node.callee.name);
        if (!use) break;
        programReferences.set(node.callee, { use, part: "program" });
        for (const argument of node.args) programReferences.set(argument.name, { use, part: "input" });
        break;
      }
      case "Binding":
      case "Output": {
        const symbol = node.name && analysis.references.get(node.name);
        const use = node.value.kind === "ProgramCall" ? analysis.imports.get(node.value.callee.name) : undefined;
        if (symbol && use) results.set(symbol, use);
        break;
      }
    }
  }
  for (const node of nodes) {
    if (node.kind !== "Member" || node.object.kind !== "Identifier") continue;
    const symbol = analysis.references.get(node.object);
    const use = symbol && results.get(symbol);
    if (use) programReferences.set(node.property, { use, part: "output" });
  }
  return { agentReferences, blockReferences, programReferences };
}
