import type * as ast from "../../../ast.js";
import { b } from "../builders.js";
import { Lines, type Lowered } from "../lowered.js";
import type { Lowering, ValueRequest } from "../lowering.js";
import type { LowerState } from "../state.js";
import { collect } from "./collect.js";

/** `try:` / `catch:` / `finally:` as TypeScript's; its value is the last value of whichever body ran. */
export function tryExpression(
  node: ast.TryExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  return collect("attempt", request.discard ?? false, state, lowering, (discarded) => {
    // Standing after a list's last value, its bodies are transparent: they give the list's value.
    const finish = discarded.kind === "discard" && state.finalResult ? state.finalResult : discarded;
    const last = finish === discarded ? {} : { finishLastValue: true };
    const body = lowering.statements(node.body, state, { scope: null, finish, ...last });
    const handler = node.handler;
    const lines = new Lines();
    // P013: a `try:` with neither handles nothing, and TypeScript has no `try` without either.
    if (!handler && !node.finalizer) {
      lines.add("{");
      lines.append(body);
      lines.add("}");
      if (finish.kind === "assign" && body.assigns(finish.target)) lines.markAssigned(finish.target);
      return lines;
    }
    if (!handler) {
      lines.add("try {");
      lines.append(body);
      if (finish.kind === "assign" && body.assigns(finish.target)) lines.markAssigned(finish.target);
    } else {
      const binding = handler.param ? caughtBinding(handler.param, lowering) : undefined;
      const caught = lowering.statements(
        handler.body,
        { ...state, inCatch: true },
        { scope: handler, finish, ...last },
      );
      // A body that gave a value and then failed gave none: the handler starts from the value before
      // the `try:`, which stands when the handler gives none on its path. (When the handler gives one
      // on every path, it replaces whatever the body gave, and nothing need be kept.) `!`: the value
      // before may be unassigned here when every path after the `try:` assigns it; TypeScript cannot
      // tell, and an unassigned one is then replaced before anything reads it.
      const keep =
        finish.kind === "assign" && !caught.assigns(finish.target) ? lowering.temporary("before") : undefined;
      if (keep !== undefined && finish.kind === "assign") lines.add(b.const(keep, `${finish.target}!`, "Value"));
      lines.add("try {");
      lines.append(body);
      lines.add("} catch ($error) {", "rt.catchable($error);");
      if (keep !== undefined && finish.kind === "assign") lines.add(b.assign(finish.target, keep));
      if (binding !== undefined) lines.add(binding);
      lines.append(caught);
      // The body may stop anywhere: the value is given on every path when both the body and the handler give it.
      if (finish.kind === "assign" && body.assigns(finish.target) && caught.assigns(finish.target))
        lines.markAssigned(finish.target);
    }
    if (node.finalizer) {
      // A cancelled branch runs its `finally` too: its steps run under the run's signal, not the branch's.
      lines.add("} finally {", "rt.finallyBody.enter();", "try {");
      lines.append(lowering.statements(node.finalizer, state, { scope: null }));
      lines.add("} finally {", "rt.finallyBody.exit();", "}");
    }
    lines.add("}");
    return lines;
  });
}

/** `const err: Value = rt.caught($error);` for `catch as err:` (a `let` when the handler reassigns it). */
function caughtBinding(param: ast.Identifier, lowering: Lowering) {
  const name = lowering.identifierName(param);
  const reassigned = lowering.analysis.references.get(param)?.reassigned ?? false;
  return reassigned ? b.let(name, "Value", "rt.caught($error)") : b.const(name, "rt.caught($error)", "Value");
}
