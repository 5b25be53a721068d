/** What calls out: sessions, `resume:`, `a -> b` chains, block calls and calls of imported programs. */
import type * as ast from "../../../ast.js";
import { schemaOf, sessionReturns } from "../../2-analyze/index.js";
import { dataLiteral, numberLiteral, recordField, stringLiteral } from "../literals.js";
import { b } from "../builders.js";
import { awaited, inert, kept, nullValue, type Lowered } from "../lowered.js";
import type { Lowering, ValueRequest } from "../lowering.js";
import { settingsFields } from "../settings.js";
import { site } from "../site.js";
import type { LowerState } from "../state.js";
import { propertyLowering, string } from "./strings.js";

export function session(
  node: ast.SessionExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  return sessionCall(node, state, lowering, request.binding, request.unbound ?? false);
}

/** `previous` is the result of the step before it in an `a -> b` chain, which the session is given as context. */
function sessionCall(
  node: ast.SessionExpression,
  state: LowerState,
  lowering: Lowering,
  binding: string | undefined,
  unbound: boolean,
  previous?: string,
): Lowered {
  const fields = [`at: ${site(node)}`];
  if (node.agent) fields.push(`agent: ${agentReference(node.agent, lowering)}`);
  const hasPrompt = node.properties.some((property) => property.key.name === "prompt");
  if (node.prompt && hasPrompt) fields.push(`label: ${string(node.prompt, state, lowering).code}`);
  else if (node.prompt) fields.push(`prompt: ${string(node.prompt, state, lowering).code}`);
  if (node.name) fields.push(`label: ${stringLiteral(node.name.name)}`);
  fields.push(...bindingField(binding));
  const verdict = lowering.filterVerdicts.has(node);
  if (verdict) fields.push("keep: true");
  if (unbound) fields.push(UNBOUND);
  fields.push(
    ...settingsFields(
      node.properties,
      propertyLowering(state, lowering),
      previous === undefined ? undefined : `previous: ${previous}`,
    ),
  );
  // A filter's verdict is read as a verdict, whatever the session's type.
  const typed = verdict ? "" : typedCall(node, lowering, fields);
  return awaited(`rt.session${typed}({ ${fields.join(", ")} })`);
}

/**
 * A typed session (`returns:`, its own or its agent's): the schema joins the request's fields, and
 * the call names the result's TypeScript type (`rt.session<readonly { ... }[]>`).
 */
function typedCall(node: ast.SessionExpression | ast.ResumeExpression, lowering: Lowering, fields: string[]): string {
  const returns = sessionReturns(node, lowering.analysis.agents);
  if (returns === undefined) return "";
  fields.push(`returns: ${dataLiteral(schemaOf(returns))}`);
  return `<${lowering.expressionType(node)}>`;
}

export function resume(
  node: ast.ResumeExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const agent = agentReference(node.agent, lowering);
  const fields = [
    `at: ${site(node)}`,
    ...bindingField(request.binding),
    ...(request.unbound ? [UNBOUND] : []),
    ...settingsFields(node.properties, propertyLowering(state, lowering)),
  ];
  const typed = typedCall(node, lowering, fields);
  return awaited(`rt.resume${typed}(${agent}, { ${fields.join(", ")} })`);
}

/** `a -> b -> c`: each session step is given the previous step's result as context. */
export function arrow(
  node: ast.ArrowExpression,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  let previous: Lowered | undefined;
  node.steps.forEach((step, index) => {
    const last = index === node.steps.length - 1;
    const unbound = last && (request.unbound ?? false);
    let lowered =
      step.kind === "Session"
        ? sessionCall(step, state, lowering, last ? request.binding : undefined, unbound, previous?.code)
        : lowering.value(step, state);
    // The chain's final result is what joins the trail.
    if (unbound && step.kind !== "Session") lowered = kept(stringLiteral("->"), lowered);
    if (last) {
      previous = lowered;
      return;
    }
    const temporary = lowering.temporary("step");
    // A session's result type named: inferred, it would be circular in a loop that assigns from the
    // chain a name its first prompt reads (`x = session "Improve {x}" -> session "Polish"`).
    const typed = step.kind === "Session" || step.kind === "Resume";
    state.out.add(b.const(temporary, lowered.code, typed ? lowering.expressionType(step) : undefined));
    previous = inert(temporary);
  });
  return previous ?? nullValue;
}

export function programCall(
  node: ast.ProgramCall,
  state: LowerState,
  lowering: Lowering,
  request: ValueRequest,
): Lowered {
  const args = node.args
    .map((argument) => recordField(argument.name.name, lowering.value(argument.value, state).code))
    .join(", ");
  const program = lowering.names.get("value", node.callee.name);
  const call = awaited(`rt.call(${site(node)}, ${stringLiteral(node.callee.name)}, ${program}.run, { ${args} })`);
  return request.unbound ? kept(stringLiteral(node.callee.name), call) : call;
}

export function doCall(node: ast.DoCall, state: LowerState, lowering: Lowering, request: ValueRequest): Lowered {
  const block = lowering.analysis.blocks.get(node.name.name);
  const maxDepth = block?.modifiers.find((modifier) => modifier.key?.name === "max_depth")?.value;
  const depth = maxDepth?.kind === "Number" ? numberLiteral(maxDepth.raw) : "undefined";
  // P006: a missing argument is `null`; an extra one is still evaluated, then ignored.
  const values = node.args.map((argument) => lowering.value(argument, state));
  const arity = block?.params.length ?? values.length;
  for (const extra of values.slice(arity)) if (extra.awaits) state.out.add(b.expression(extra.code));
  const missing = Array.from({ length: arity - Math.min(arity, values.length) }, () => "null");
  const args = ["rt", ...values.slice(0, arity).map((value) => value.code), ...missing].join(", ");
  const fn = lowering.names.get("block", node.name.name);
  const call = awaited(
    `rt.block(${site(node)}, ${stringLiteral(node.name.name)}, ${depth}, async (rt) => ${fn}(${args}))`,
  );
  return request.unbound ? kept(stringLiteral(`do ${node.name.name}`), call) : call;
}

/** A session field: its result joins the trail. */
const UNBOUND = "unbound: true";

function bindingField(binding: string | undefined): string[] {
  return binding === undefined ? [] : [`binding: ${stringLiteral(binding)}`];
}

/** A static agent is a constant; one whose properties read bindings is built when it is used. */
function agentReference(identifier: ast.Identifier, lowering: Lowering): string {
  const name = lowering.names.get("agent", identifier.name);
  if (!lowering.dynamicAgents.has(identifier.name)) return name;
  return `await ${name}(${lowering.agentsTakingHandle.has(identifier.name) ? "rt" : ""})`;
}
