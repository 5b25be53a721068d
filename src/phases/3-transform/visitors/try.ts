import type * as ast from "../../../ast.js";
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
  return collect("attempt", request.discard ?? false, state, lowering, (finish) => {
    const lines = new Lines();
    lines.add("try {");
    lines.append(lowering.statements(node.body, state, { scope: null, finish }));
    const handler = node.handler;
    if (handler) {
      lines.add("} catch ($error) {", "rt.catchable($error);");
      if (handler.param)
        lines.add(
          `const ${lowering.identifierName(handler.param)}: Value = $error instanceof Error ? $error.message : String($error);`,
        );
      lines.append(lowering.statements(handler.body, { ...state, inCatch: true }, { scope: handler, finish }));
    }
    if (node.finalizer) {
      lines.add("} finally {");
      lines.append(lowering.statements(node.finalizer, state, { scope: null }));
    }
    lines.add("}");
    return lines;
  });
}
