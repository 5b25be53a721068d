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
    lines.add("try {");
    lines.append(body);
    if (handler) {
      lines.add("} catch ($error) {", "rt.catchable($error);");
      if (handler.param) {
        const name = lowering.identifierName(handler.param);
        const reassigned = lowering.analysis.references.get(handler.param)?.reassigned ?? false;
        lines.add(reassigned ? b.let(name, "Value", "rt.caught($error)") : b.const(name, "rt.caught($error)", "Value"));
      }
      const caught = lowering.statements(
        handler.body,
        { ...state, inCatch: true },
        { scope: handler, finish, ...last },
      );
      lines.append(caught);
      // The body may stop anywhere: the value is given on every path when both the body and the handler give it.
      if (finish.kind === "assign" && body.assigns(finish.target) && caught.assigns(finish.target))
        lines.markAssigned(finish.target);
    } else if (finish.kind === "assign" && body.assigns(finish.target)) {
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
