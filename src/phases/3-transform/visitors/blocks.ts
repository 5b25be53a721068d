/** `block` definitions and `do:` blocks. */
import type * as ast from "../../../ast.js";
import type { Scope, SymbolInfo } from "../../2-analyze/index.js";
import { b } from "../builders.js";
import { returnValue, type Lowered } from "../lowered.js";
import type { Lowering, StatementOutcome, ValueRequest } from "../lowering.js";
import type { LowerState } from "../state.js";
import { collect } from "./collect.js";
import { blockBody } from "./jumps.js";

/** A block is an async function declared where it stands; `do name(...)` calls it through `rt.block`. */
export function blockDefinition(block: ast.BlockDefinition, state: LowerState, lowering: Lowering): StatementOutcome {
  // A block nothing calls (but itself) would be a function nothing calls: it is not written.
  if (!lowering.analysis.calledBlocks.has(block)) return {};
  const name = lowering.names.get("block", block.name.name);
  // `rt`: the call's own handle (`rt.block` gives it), which its steps run in.
  const params = ["rt: Runtime", ...block.params.map((param) => `${lowering.identifierName(param)}: Value`)].join(", ");
  const body = lowering.statements(block.body, blockBody(state), { scope: block, finish: returnValue });
  // Bindings read outside the block belong to each call's frame; a call that finishes leaves its
  // values where the outside reads them (DIALECT.md, "Scoping and names").
  const own = [...lowering.promoted].filter((symbol) => blockOf(symbol) === block);
  if (own.length === 0) {
    state.out.add(`async function ${name}(${params}): Promise<Value> {`, ...body.statements, "}");
    return {};
  }
  state.out.add(
    `async function ${name}(${params}): Promise<Value> {`,
    ...own.map((symbol) => b.let(lowering.symbolName(symbol), "Value", "null")),
    "try {",
    ...body.statements,
    "} finally {",
    ...own.map((symbol) => `${lowering.lastCallName(symbol)}.offer(${lowering.symbolName(symbol)}, rt);`),
    "}",
    "}",
  );
  return {};
}

/** The block definition whose body declares `symbol`, if any. */
function blockOf(symbol: SymbolInfo): ast.Node | undefined {
  for (let scope: Scope | null = symbol.scope; scope !== null; scope = scope.parent)
    if (scope.kind === "block" && scope.node.kind === "Block") return scope.node;
  return undefined;
}

/**
 * `do:` as a value. Its result is declared with the type analysis gives it: inferred, it would be
 * circular in a loop whose `x = do:` body assigns `x` from itself (`x = [x * 3]` in an inner loop).
 */
export function doBlock(node: ast.DoBlock, state: LowerState, lowering: Lowering, request: ValueRequest): Lowered {
  return collect(
    "result",
    request.discard ?? false,
    state,
    lowering,
    (finish) => lowering.statements(node.body, state, { scope: null, finish }),
    lowering.expressionType(node),
  );
}
