import type * as ast from "../../../ast.js";
import { awaited, inert, returnValue, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { loopVariable } from "./loop-variables.js";

/** `xs | map: ... | filter: ... | reduce(acc, x): ...`: each stage's result is the next stage's list. */
export function pipeline(node: ast.PipelineExpression, state: LowerState, lowering: Lowering): Lowered {
  let source = lowering.value(node.source, state);
  for (const stage of node.stages) source = pipeStage(stage, source, state, lowering);
  return source;
}

function pipeStage(stage: ast.PipeStage, source: Lowered, state: LowerState, lowering: Lowering): Lowered {
  const out = state.out;
  const items = `await rt.list(${site(stage)}, ${source.code})`;
  const scope = lowering.analysis.scopes.get(stage);
  const item = scope ? [...scope.symbols.values()].find((symbol) => symbol.kind === "pipe-item") : undefined;
  const itemName = item ? lowering.symbolName(item) : "item";
  const each = loopVariable(item, "item", lowering);
  switch (stage.operator) {
    case "pmap": {
      const body = lowering.statements(stage.body, state, { scope: stage, finish: returnValue });
      return awaited(`rt.map(${site(stage)}, ${items}, async (${itemName}) => {\n${body.text()}\n})`);
    }
    case "map":
    case "filter": {
      const target = lowering.temporary(stage.operator === "map" ? "mapped" : "kept");
      const finish =
        stage.operator === "map"
          ? ({ kind: "push", target } as const)
          : ({
              kind: "keep",
              target,
              item: itemName,
              test: (value: string) => `await rt.truthy(${site(stage)}, ${value})`,
            } as const);
      const body = lowering.statements(stage.body, state, { scope: stage, finish });
      out.add(`const ${target}: Value[] = [];`, `for (const ${each.head} of ${items}) {`, ...each.rebind);
      out.append(body);
      out.add("}");
      return inert(target);
    }
    case "reduce": {
      const [accumulator, element] = stage.params;
      const all = lowering.temporary("items");
      const acc = accumulator ? lowering.identifierName(accumulator) : "$accumulator";
      const next = element
        ? loopVariable(lowering.analysis.references.get(element), "item", lowering)
        : { head: "$item", rebind: [] };
      const body = lowering.statements(stage.body, state, { scope: stage, finish: { kind: "assign", target: acc } });
      // In a block of its own: a second `reduce(acc, x)` in the same body names its accumulator alike.
      // The block always ends by giving the result, so it is declared without a value ahead.
      const reduced = lowering.temporary("reduced");
      out.add(`const ${all} = ${items};`, `let ${reduced}: Value;`, "{", `let ${acc}: Value = ${all}[0] ?? null;`);
      out.add(`for (const ${next.head} of ${all}.slice(1)) {`, ...next.rebind);
      out.append(body);
      out.add("}", `${reduced} = ${acc};`, "}");
      return inert(reduced);
    }
  }
}
