/** `parallel:` blocks and `parallel for`: concurrent branches joined by the runtime. */
import type * as ast from "../../../ast.js";
import { numberLiteral, propertyKey, stringLiteral } from "../literals.js";
import { awaited, inert, Lines, returnValue, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import { site } from "../site.js";
import { nested, type LowerState } from "../state.js";
import { counter } from "./loop-variables.js";
import { binaryHelper } from "./operators.js";

/**
 * `parallel:` → `rt.parallel` (all branches start together; join and failure policy in the
 * runtime). Branch results are bound after the join, so a failed branch under `on-fail:
 * "continue"` binds its error record.
 */
export function parallel(node: ast.ParallelExpression, state: LowerState, lowering: Lowering): Lowered {
  const options: string[] = [];
  for (const modifier of node.modifiers) {
    const word =
      modifier.value.kind === "String"
        ? modifier.value.value
        : modifier.value.kind === "Identifier"
          ? modifier.value.name
          : undefined;
    if (modifier.key === null && word !== undefined) options.push(`join: ${stringLiteral(word)}`);
    else if (modifier.key?.name === "on-fail" && word !== undefined) options.push(`onFail: ${stringLiteral(word)}`);
    else if (modifier.key?.name === "count" && modifier.value.kind === "Number")
      options.push(`count: ${numberLiteral(modifier.value.raw)}`);
  }
  const branches = node.branches.map((branch) => `async () => {\n${branchBody(branch, state, lowering).text()}\n}`);
  const results = lowering.temporary("parallel");
  state.out.add(
    `const ${results} = await rt.parallel(${site(node)}, { ${options.join(", ")} }, [${branches.join(",\n")}]);`,
  );
  // The block's value when every branch is named: a record of the names, the last branch winning
  // a name bound twice (as it does the binding).
  const named = new Map<string, string>();
  node.branches.forEach((branch, index) => {
    const identifier = branch.kind === "Binding" ? branch.name : branch.kind === "Output" ? branch.name : null;
    if (!identifier) {
      // An unbound branch's result joins the trail after the join, in branch order.
      if (branch.kind !== "Destructure")
        state.out.add(`rt.keep(${stringLiteral(`parallel branch ${index + 1}`)}, ${results}[${index}] ?? null);`);
      return;
    }
    const name = lowering.identifierName(identifier);
    state.out.add(
      `${name} = rt.bind(${site(identifier)}, ${stringLiteral(identifier.name)}, ${results}[${index}] ?? null);`,
    );
    named.delete(identifier.name);
    named.set(identifier.name, name);
  });
  const allNamed = node.branches.every(
    (branch) => (branch.kind === "Binding" || branch.kind === "Output") && branch.name,
  );
  const record = [...named].map(([key, name]) => `${propertyKey(key)}: ${name}`);
  return inert(allNamed && named.size > 0 ? `{ ${record.join(", ")} }` : results);
}

/** A parallel branch returns its value; a named branch's binding happens after the join. */
function branchBody(branch: ast.Statement, state: LowerState, lowering: Lowering): Lines {
  if (branch.kind === "Binding" || (branch.kind === "Output" && branch.name)) {
    const inner = nested(state);
    const value = lowering.value(branch.value, inner, branch.name ? { binding: branch.name.name } : {});
    inner.out.leave(`return ${value.code};`);
    return inner.out;
  }
  return lowering.statements([branch], state, { scope: null, finish: returnValue });
}

/**
 * `parallel for` → `rt.map`. An outer accumulator appended to in the body (`xs = xs + [r]`)
 * must not race: each iteration records its part in a slot of its own, and the parts are
 * appended after the join, in item order, as a sequential `for` would have.
 */
export function parallelFor(node: ast.ForEachExpression, state: LowerState, lowering: Lowering): Lowered {
  const item = lowering.identifierName(node.item);
  // The index is a number the runtime passes (and an accumulator's slot): a reassigned one gets a `let` of its own.
  const position = counter(node.index, "index", lowering);
  const index = node.index ? position.head : "$index";
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
  const items = `await rt.list(${site(node.collection)}, ${lowering.value(node.collection, state).code})`;
  const iteration = (inner: LowerState): Lines => {
    const body = new Lines();
    body.add(...position.rebind);
    body.append(lowering.statements(node.body, inner, { scope: node, finish: returnValue }));
    return body;
  };
  if (accumulating.length === 0) {
    const body = iteration(state);
    return awaited(
      `rt.map(${site(node)}, ${items}, async (${item}${node.index ? `, ${index}` : ""}) => {\n${body.text()}\n})`,
    );
  }
  const parts = lowering.temporary("parts");
  const list = lowering.temporary("items");
  const accumulators = new Map(state.accumulators);
  accumulating.forEach((statement, slot) => accumulators.set(statement, `${parts}[${slot}]![${index}]`));
  const body = iteration({ ...state, accumulators });
  const results = lowering.temporary("results");
  state.out.add(
    `const ${list} = ${items};`,
    `const ${parts}: Value[][] = [${accumulating.map(() => "[]").join(", ")}];`,
    `const ${results} = await rt.map(${site(node)}, ${list}, async (${item}, ${index}) => {`,
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
  return inert(results);
}
