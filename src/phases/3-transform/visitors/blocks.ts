/** `block` definitions and `do:` blocks. */
import type * as ast from "../../../ast.js";
import { returnValue, type Lowered } from "../lowered.js";
import type { Lowering, StatementOutcome, ValueRequest } from "../lowering.js";
import type { LowerState } from "../state.js";
import { collect } from "./collect.js";

/** A block is an async function declared where it stands; `do name(...)` calls it through `rt.block`. */
export function blockDefinition(block: ast.BlockDefinition, state: LowerState, lowering: Lowering): StatementOutcome {
  const name = lowering.names.get("block", block.name.name);
  const params = block.params.map((param) => `${lowering.identifierName(param)}: Value`).join(", ");
  const body = lowering.statements(block.body, state, { scope: block, finish: returnValue });
  state.out.add(`async function ${name}(${params}): Promise<Value> {`, ...body.statements, "}");
  return {};
}

export function doBlock(node: ast.DoBlock, state: LowerState, lowering: Lowering, request: ValueRequest): Lowered {
  return collect("result", request.discard ?? false, state, lowering, (finish) =>
    lowering.statements(node.body, state, { scope: null, finish }),
  );
}
