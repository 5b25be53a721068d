import type * as ast from "../../../ast.js";
import { b } from "../builders.js";
import { awaited, inert, Lines, returnValue, type Finish, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { concurrentBody, itemBody } from "./jumps.js";
import { countDown, handsOver, loopVariable, UNREAD_INDEX, UNREAD_ITEM } from "./loop-variables.js";

/**
 * `xs | map: ... | filter: ... | reduce(acc, x): ...`: each stage's result is the next stage's list.
 * Every item is a sequence of its own (DIALECT.md, "Context"): its unbound results stay inside it,
 * neither later items nor what follows the pipeline see them.
 */
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
      const body = lowering.statements(stage.body, concurrentBody(state, true), { scope: stage, finish: returnValue });
      // The item's handle comes last (see `parallelFor`).
      const parameter = handsOver(item, lowering) ? itemName : UNREAD_ITEM;
      return awaited(
        `rt.map(${site(stage)}, ${items}, async (${parameter}, ${UNREAD_INDEX}, rt) => {\n${body.text()}\n})`,
      );
    }
    case "map":
    case "filter": {
      const target = lowering.temporary(stage.operator === "map" ? "mapped" : "kept");
      const finish: Finish =
        stage.operator === "map"
          ? { kind: "push", target }
          : {
              kind: "keep",
              target,
              item: itemName,
              test: (value: string) => `await rt.truthy(${site(stage)}, ${value})`,
            };
      const body = lowering.statements(stage.body, itemBody(state, finish), { scope: stage, finish });
      const sequence = lowering.temporary("sequence");
      const lines = new Lines();
      // A `filter` keeps the item; a `map` whose body does not read it counts the items down.
      if (stage.operator === "filter" || handsOver(item, lowering))
        lines.add(`for (const ${each.head} of ${items}) {`, `${sequence}.next();`, ...each.rebind);
      else lines.add(countDown(items, lowering), `${sequence}.next();`);
      lines.append(body);
      lines.add("}");
      const element = stage.operator === "map" ? lowering.itemType(stage.body) : "Value";
      out.add(b.const(target, "[]", `${element}[]`));
      out.append(eachItem(sequence, lines));
      return inert(target);
    }
    case "reduce": {
      const [accumulator, element] = stage.params;
      const all = lowering.temporary("items");
      const acc = accumulator ? lowering.identifierName(accumulator) : "$accumulator";
      const next = element
        ? loopVariable(lowering.analysis.references.get(element), "item", lowering)
        : { head: "$item", rebind: [] };
      const finish: Finish = { kind: "assign", target: acc };
      const body = lowering.statements(stage.body, itemBody(state, finish), { scope: stage, finish });
      const sequence = lowering.temporary("sequence");
      // In a block of its own: a second `reduce(acc, x)` in the same body names its accumulator alike.
      // The block always ends by giving the result, so it is declared without a value ahead.
      const reduced = lowering.temporary("reduced");
      const steps = new Lines();
      const elementSymbol = element ? lowering.analysis.references.get(element) : undefined;
      if (element === undefined || handsOver(elementSymbol, lowering))
        steps.add(`for (const ${next.head} of ${all}.slice(1)) {`, `${sequence}.next();`, ...next.rebind);
      else steps.add(countDown(`${all}.slice(1)`, lowering), `${sequence}.next();`);
      steps.append(body);
      steps.add("}");
      out.add(b.const(all, items), b.let(reduced, "Value"), "{", b.let(acc, "Value", `${all}[0] ?? null`));
      out.append(eachItem(sequence, steps));
      out.add(b.assign(reduced, acc), "}");
      return inert(reduced);
    }
  }
}

/** A stage's items, each a sequence of its own; the enclosing sequence is back when the stage ends, however it ends. */
function eachItem(sequence: string, items: Lines): Lines {
  const lines = new Lines();
  lines.add(b.const(sequence, "rt.items()"), "try {");
  lines.append(items);
  lines.add("} finally {", `${sequence}.end();`, "}");
  return lines;
}
