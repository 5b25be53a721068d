/** `repeat`, `for` and `loop`: counted TypeScript `for` loops whose value is their last iteration's. */
import type * as ast from "../../../ast.js";
import type { SymbolInfo } from "../../2-analyze/index.js";
import { numberLiteral } from "../literals.js";
import { b } from "../builders.js";
import { discard as discardValue, inert, Lines, nullValue, type Lowered } from "../lowered.js";
import { declaredKinds, type Lowering, type ValueRequest } from "../lowering.js";
import { site } from "../site.js";
import { nested, type LowerState } from "../state.js";
import { collect } from "./collect.js";
import { loopBody } from "./jumps.js";
import { counter, countDown, handsOver, loopVariable } from "./loop-variables.js";

export function repeat(
  node: ast.RepeatExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const { head: index, rebind } = counter(node.index, "i", lowering);
  const count =
    node.count.kind === "Number" ? numberLiteral(node.count.raw) : `Number(${lowering.value(node.count, state).code})`;
  return collect("repeat", request.discard ?? false, state, lowering, (finish) => {
    const sequence = lowering.temporary("sequence");
    const body = loopBody(node, state, finish, lowering);
    const lines = new Lines();
    lines.add(
      `${labelled(body.label)}for (let ${index} = 0; ${index} < ${count}; ${index}++) {`,
      `${sequence}.next();`,
      ...rebind,
      `rt.iteration(${site(node)}, ${index});`,
    );
    lines.append(lowering.statements(node.body, body.state, { scope: node, finish }));
    lines.add("}");
    return sequenced(sequence, lines);
  });
}

/** A sequential `for`: its value is the list of its iterations' values. */
export function forEach(
  node: ast.ForEachExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const itemSymbol = lowering.analysis.references.get(node.item);
  const indexSymbol = node.index ? lowering.analysis.references.get(node.index) : undefined;
  // What nothing reads, the loop does not hand over: `[i]`, the item alone, or a count.
  const item = handsOver(itemSymbol, lowering) ? loopVariable(itemSymbol, "item", lowering) : undefined;
  const index =
    node.index && handsOver(indexSymbol, lowering) ? loopVariable(indexSymbol, "index", lowering) : undefined;
  const items = `await rt.list(${site(node.collection)}, ${lowering.value(node.collection, state).code})`;
  const head =
    index && item
      ? `for (const [${index.head}, ${item.head}] of (${items}).entries()) {`
      : index
        ? `for (const [${index.head}] of (${items}).entries()) {`
        : item
          ? `for (const ${item.head} of ${items}) {`
          : countDown(items, lowering);
  const rebind = [...(index?.rebind ?? []), ...(item?.rebind ?? [])];
  const sequence = lowering.temporary("sequence");
  const iterations = (body: Lines, label: string): Lines => {
    const lines = new Lines();
    lines.add(`${labelled(label)}${head}`, `${sequence}.next();`, ...rebind);
    lines.append(body);
    lines.add("}");
    return sequenced(sequence, lines);
  };
  if (request.discard) {
    const inner = loopBody(node, state, discardValue, lowering);
    const body = lowering.statements(node.body, inner.state, { scope: node, finish: discardValue });
    state.out.append(iterations(body, inner.label));
    return nullValue;
  }
  const results = lowering.temporary("results");
  const finish = { kind: "push", target: results } as const;
  const inner = loopBody(node, state, finish, lowering);
  const body = lowering.statements(node.body, inner.state, { scope: node, finish });
  state.out.add(b.const(results, "[]", `${lowering.itemType(node.body)}[]`));
  state.out.append(iterations(body, inner.label));
  return inert(results);
}

/**
 * `loop`, `loop until`, `loop while`: a counted `for` bounded by `max`. The condition is judged
 * before each iteration, the first included (prose.md, "Unbounded Loops": check, exit when it is
 * satisfied or `max` is reached, else run the body). The condition (`until` or `while`) sees what
 * the body binds, as analysis resolved it: the loop's own bindings are declared before the loop
 * (`null` before the first iteration, then the last iteration's values), as the bindings that stay
 * visible after the loop already are.
 */
export function loop(node: ast.LoopExpression, state: LowerState, lowering: Lowering, request: ValueRequest): Lowered {
  const { head: index, rebind } = counter(node.index, "iteration", lowering);
  const max = node.modifiers.find((modifier) => modifier.key?.name === "max")?.value;
  const bound =
    max === undefined
      ? ""
      : ` ${index} < ${max.kind === "Number" ? numberLiteral(max.raw) : `Number(${lowering.value(max, state).code})`}`;
  const condition = node.condition;
  const declared: SymbolInfo[] = [];
  if (condition !== null) {
    for (const symbol of lowering.analysis.scopes.get(node)?.symbols.values() ?? []) {
      if (declaredKinds.has(symbol.kind) && !lowering.promoted.has(symbol) && !lowering.unnamed(symbol))
        declared.push(symbol);
    }
  }
  const inner: LowerState =
    declared.length === 0
      ? state
      : { ...state, declaredBeforeLoop: new Set([...state.declaredBeforeLoop, ...declared]) };
  return collect("loop", request.discard ?? false, state, lowering, (finish) => {
    const sequence = lowering.temporary("sequence");
    const body = loopBody(node, inner, finish, lowering);
    const iterations = new Lines();
    iterations.add(
      `${labelled(body.label)}for (let ${index} = 0;${bound}; ${index}++) {`,
      `${sequence}.next();`,
      ...rebind,
    );
    if (condition !== null) {
      const testState: LowerState = { ...nested(inner), judgeBefore: node.loc.end.offset, asker: condition.mode };
      const test = lowering.condition(condition.test, testState).code;
      iterations.append(testState.out);
      iterations.add(condition.mode === "until" ? `if (${test}) break;` : `if (!(${test})) break;`);
    }
    iterations.add(b.expression(`rt.iteration(${site(node)}, ${index})`));
    iterations.append(lowering.statements(node.body, body.state, { scope: node, finish }));
    iterations.add("}");
    if (declared.length === 0) return sequenced(sequence, iterations);
    // In a block of their own: their names are those of the loop's scope, which a sibling may reuse.
    const lines = new Lines();
    lines.add(
      "{",
      ...declared.map((symbol) => b.let(lowering.symbolName(symbol), lowering.typeOf(symbol, true), "null")),
    );
    lines.append(sequenced(sequence, iterations));
    lines.add("}");
    return lines;
  });
}

/** `label: ` before a loop that a `break` in a `choice` leaves; nothing otherwise. */
function labelled(label: string): string {
  return label === "" ? "" : `${label}: `;
}

/**
 * A sequential loop with each iteration a sequence of its own (`$sequence.next()` in the body starts
 * one, whose trail the next iteration sees); the enclosing sequence is back when the loop ends,
 * however it ends.
 */
function sequenced(sequence: string, iterations: Lines): Lines {
  const lines = new Lines();
  lines.add(b.const(sequence, "rt.loop()"), "try {");
  lines.append(iterations);
  lines.add("} finally {", `${sequence}.end();`, "}");
  return lines;
}
