/** `parallel:` blocks and `parallel for`: concurrent branches the runtime starts, joined by `Promise.all` or a race. */
import type * as ast from "../../../ast.js";
import { branchBinding } from "../../2-analyze/index.js";
import { recordField, stringLiteral } from "../literals.js";
import { b } from "../builders.js";
import { awaited, inert, Lines, nullValue, returnValue, type Lowered } from "../lowered.js";
import type { Lowering, ValueRequest } from "../lowering.js";
import { site } from "../site.js";
import { nested, type LowerState } from "../state.js";
import { concurrentBody } from "./jumps.js";
import { counter, handsOver, UNREAD_INDEX, UNREAD_ITEM } from "./loop-variables.js";
import { binaryHelper } from "./operators.js";
import { namesType } from "../names-type.js";

/**
 * `parallel:` → `await Promise.all(rt.branches(...))` over branches the runtime starts (each with
 * its step keys, abort signal and failure policy); `("first")` → `rt.first`, `("any", count: n)` →
 * `rt.any`. Named branches are destructured from the joined result and bound after the join, so a
 * failed branch under `on-fail: "continue"` binds its error record.
 */
export function parallel(
  node: ast.ParallelExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const { join, count, onFail } = lowering.analysis.parallelPlans.get(node)!;
  const options = [
    count === undefined ? undefined : `count: ${count}`,
    onFail === "fail-fast" ? undefined : `onFail: ${stringLiteral(onFail)}`,
  ].filter((option) => option !== undefined);
  const inBranch = concurrentBody(state, false);
  const branches = node.branches.map((branch) => branchFunction(branch, inBranch, lowering));
  const started = `(${site(node)}, { ${options.join(", ")} }, [${branches.join(",\n")}])`;
  const call =
    join === "first"
      ? `rt.first${started}`
      : join === "any"
        ? `rt.any${started}`
        : `Promise.all(rt.branches${started})`;

  const names = node.branches.map(branchBinding);
  // An unbound branch's result joins the trail after the join, in branch order (a destructuring one is bound).
  const kept = node.branches.map((branch, index) => names[index] === null && branch.kind !== "Destructure");
  const allNamed = names.every((name) => name !== null);
  let results: string | undefined;
  if (kept.includes(true) || (!allNamed && !request.discard)) {
    results = lowering.temporary("parallel");
    state.out.add(b.const(results, `await ${call}`));
  }
  if (names.some((name) => name !== null)) {
    const pattern = names.map((name) => (name ? lowering.identifierName(name) : null));
    const declared = names.some((name) => name !== null && declaresHere(name, state, lowering));
    state.out.add(b.destructure(pattern, results ?? `await ${call}`, declared));
  } else if (results === undefined) {
    state.out.add(b.expression(`await ${call}`));
  }
  // The block's value when every branch is named: a record of the names, the last branch winning
  // a name bound twice (as it does the binding).
  const named = new Map<string, string>();
  names.forEach((identifier, index) => {
    if (kept[index])
      state.out.add(
        b.expression(`rt.keep(${stringLiteral(`parallel branch ${index + 1}`)}, ${results}[${index}] ?? null)`),
      );
    if (!identifier) return;
    const name = lowering.identifierName(identifier);
    state.out.add(b.expression(`rt.bind(${site(identifier)}, ${stringLiteral(identifier.name)}, ${name})`));
    named.delete(identifier.name);
    named.set(identifier.name, name);
  });
  if (!allNamed) return inert(results ?? "null");
  const record = [...named].map(([key, name]) => recordField(key, name));
  return inert(`{ ${record.join(", ")} }`);
}

/** Whether the statement list declares the name's symbol at this branch (see `statement-list.ts`). */
function declaresHere(identifier: ast.Identifier, state: LowerState, lowering: Lowering): boolean {
  const symbol = lowering.analysis.references.get(identifier);
  return symbol !== undefined && state.declaredHere.has(symbol) && symbol.declaration === identifier;
}

/**
 * A parallel branch returns its value; a named branch's binding happens after the join. A branch
 * that is one runtime call is that call (`(rt) => rt.session({ ... })`): `rt` is the branch's own
 * handle, which its steps run in.
 */
function branchFunction(branch: ast.Statement, state: LowerState, lowering: Lowering): string {
  const { head, body } = branchParts(branch, state, lowering);
  // A branch that takes no step needs no handle (an unread parameter fails linters).
  return `${head}(${namesType(body, "rt") ? "rt" : ""}) => ${body}`;
}

/** A branch as `head(...) => body`: `head` is `async ` when the body awaits. */
function branchParts(
  branch: ast.Statement,
  state: LowerState,
  lowering: Lowering,
): { readonly head: string; readonly body: string } {
  const inner = nested(state);
  let value: Lowered;
  if (branch.kind === "Binding" || (branch.kind === "Output" && branch.name)) {
    value = lowering.value(branch.value, inner, branch.name ? { binding: branch.name.name } : {});
  } else if (branch.kind === "ExpressionStatement") {
    value = lowering.value(branch.expression, inner, { unbound: true });
  } else {
    const body = lowering.statements([branch], state, { scope: null, finish: returnValue });
    return { head: "async ", body: `{\n${body.text()}\n}` };
  }
  // An argument that waits (`{x.field}` read by the model) needs an async function around the call.
  if (inner.out.isEmpty && value.call !== undefined && !value.call.includes("await"))
    return { head: "", body: value.call };
  inner.out.leave(`return ${value.code};`);
  return { head: "async ", body: `{\n${inner.out.text()}\n}` };
}

/**
 * `parallel for` → `rt.map`. An outer accumulator appended to in the body (`xs = xs + [r]`)
 * must not race: each iteration records its part in a slot of its own, and the parts are
 * appended after the join, in item order, as a sequential `for` would have.
 */
export function parallelFor(
  node: ast.ForEachExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const itemSymbol = lowering.analysis.references.get(node.item);
  const item = handsOver(itemSymbol, lowering) ? lowering.identifierName(node.item) : UNREAD_ITEM;
  // The index is a number the runtime passes (and an accumulator's slot): a reassigned one gets a `let` of its own.
  const position = counter(node.index, "index", lowering);
  const loopScope = lowering.analysis.scopes.get(node);
  const accumulating = node.body.filter((statement): statement is ast.BindingStatement => {
    if (
      statement.kind !== "Binding" ||
      statement.declaration !== null ||
      statement.value.kind !== "Binary" ||
      statement.value.operator !== "+"
    )
      return false;
    const symbol = lowering.analysis.references.get(statement.name);
    return (
      symbol !== undefined &&
      symbol.scope !== loopScope &&
      statement.value.left.kind === "Identifier" &&
      lowering.analysis.references.get(statement.value.left) === symbol
    );
  });
  const index =
    accumulating.length > 0 ||
    (node.index !== null && handsOver(lowering.analysis.references.get(node.index), lowering))
      ? position.head
      : UNREAD_INDEX;
  const items = `await rt.list(${site(node.collection)}, ${lowering.value(node.collection, state).code})`;
  const iteration = (inner: LowerState): Lines => {
    const body = new Lines();
    body.add(...position.rebind);
    body.append(lowering.statements(node.body, concurrentBody(inner, true), { scope: node, finish: returnValue }));
    return body;
  };
  if (accumulating.length === 0) {
    const body = iteration(state);
    // The item's handle comes last: a body that takes no step leaves it out.
    return awaited(`rt.map(${site(node)}, ${items}, async (${item}, ${index}, rt) => {\n${body.text()}\n})`);
  }
  const parts = lowering.temporary("parts");
  const list = lowering.temporary("items");
  const accumulators = new Map(state.accumulators);
  accumulating.forEach((statement, slot) => accumulators.set(statement, `${parts}[${slot}]![${index}]`));
  const body = iteration({ ...state, accumulators });
  const results = request.discard ? undefined : lowering.temporary("results");
  state.out.add(
    `const ${list} = ${items};`,
    `const ${parts}: Value[][] = [${accumulating.map(() => "[]").join(", ")}];`,
    `${results === undefined ? "" : `const ${results} = `}await rt.map(${site(node)}, ${list}, async (${item}, ${index}, rt) => {`,
    ...body.statements,
    "});",
    `for (let $position = 0; $position < ${list}.length; $position++) {`,
  );
  accumulating.forEach((statement, slot) => {
    const name = lowering.identifierName(statement.name);
    const operator =
      statement.value.kind === "Binary" ? binaryHelper(statement.value.operator, lowering) : lowering.helper("add");
    state.out.add(
      `const $part${slot} = ${parts}[${slot}]![$position];`,
      `if ($part${slot} !== undefined) ${name} = rt.bind(${site(statement.name)}, ${stringLiteral(statement.name.name)}, ${operator}(${name}, $part${slot}));`,
    );
  });
  state.out.add("}");
  return results === undefined ? nullValue : inert(results);
}
