/** Statements that steer: expression statements, `if`, `choice`, `throw` and `assert`. */
import type * as ast from "../../../ast.js";
import { b } from "../builders.js";
import type { ListOptions, Lowering, StatementOutcome } from "../lowering.js";
import { stringLiteral } from "../literals.js";
import { site } from "../site.js";
import { nested, type LowerState } from "../state.js";
import { judgeScope } from "./conditions.js";
import { string, templateOf, text } from "./strings.js";

/** `use`, `import` and `agent` write nothing where they stand (the module's head holds them). */
export function declarative(): StatementOutcome {
  return {};
}

/** A statement skipped for a syntax error: a program with errors is never lowered (compile.ts). */
export function recovered(): StatementOutcome {
  throw new Error("internal error: a program with syntax errors reached code generation");
}

export function expressionStatement(
  statement: ast.ExpressionStatement,
  state: LowerState,
  lowering: Lowering,
  wantValue: boolean,
): StatementOutcome {
  const value = lowering.value(statement.expression, state, { discard: !wantValue, unbound: true });
  if (wantValue) return { value };
  // Block-valued constructs have written their statements already; what stands for them is inert.
  if (value.effectful) state.out.add(b.expression(value.code));
  return {};
}

export function ifStatement(statement: ast.IfStatement, state: LowerState, lowering: Lowering): StatementOutcome {
  const out = state.out;
  let open = 0;
  statement.clauses.forEach((clause, index) => {
    const testState: LowerState = { ...nested(state), asker: index === 0 ? "if" : "elif" };
    const test = lowering.condition(clause.test, testState).code;
    if (index === 0) {
      out.append(testState.out);
      out.add(`if (${test}) {`);
    } else if (testState.out.isEmpty) {
      out.add(`} else if (${test}) {`);
    } else {
      // An `elif` condition that needs statements first: they run only when the earlier tests failed.
      out.add("} else {");
      out.append(testState.out);
      out.add(`if (${test}) {`);
      open++;
    }
    out.append(lowering.statements(clause.body, state, { scope: clause, ...finalResultOf(state) }));
  });
  if (statement.alternate) {
    out.add("} else {");
    out.append(lowering.statements(statement.alternate, state, { scope: statement, ...finalResultOf(state) }));
  }
  out.add("}", ...Array.from({ length: open }, () => "}"));
  return {};
}

export function choice(statement: ast.ChoiceStatement, state: LowerState, lowering: Lowering): StatementOutcome {
  const criteria = templateOf(statement.criteria.parts, state, lowering).code;
  const labels = statement.options.map((option) => string(option.label, state, lowering).code).join(", ");
  const scope = judgeScope(statement.criteria, state, lowering);
  state.out.add(`switch (await rt.choose(${site(statement)}, ${criteria}, [${labels}], ${scope})) {`);
  const bodies = statement.options.map((option) =>
    lowering.statements(option.body, state, { scope: option, ...finalResultOf(state) }),
  );
  // When every option leaves, the last is the `default:`: TypeScript then knows that nothing after
  // the `switch` runs (else it narrows every value there to `never`, as after an exhaustive switch).
  const allLeave = bodies.length > 0 && bodies.every((body) => body.exits);
  bodies.forEach((body, index) => {
    state.out.add(allLeave && index === bodies.length - 1 ? "default: {" : `case ${index}: {`);
    state.out.append(body);
    // An option that leaves (`return`, `throw`, a labelled `break`) needs no `break` of its own.
    if (!body.exits) state.out.add("break;");
    state.out.add("}");
  });
  if (allLeave) state.out.leave("}");
  else state.out.add("}");
  return {};
}

/** A transparent body's list options: it gives the program's final result when it gives a value. */
function finalResultOf(state: LowerState): Partial<ListOptions> {
  return state.finalResult ? { finish: state.finalResult, finishLastValue: true } : {};
}

export function throwStatement(statement: ast.ThrowStatement, state: LowerState, lowering: Lowering): StatementOutcome {
  // A bare `throw` in a `catch:` re-raises what was caught.
  if (!statement.message && state.inCatch) state.out.leave("throw $error;");
  else
    state.out.leave(
      `throw rt.fail(${site(statement)}${statement.message ? `, ${text(statement.message, state, lowering)}` : ""});`,
    );
  return {};
}

export function assertStatement(
  statement: ast.AssertStatement,
  state: LowerState,
  lowering: Lowering,
): StatementOutcome {
  const message = statement.message ? `, ${string(statement.message, state, lowering).code}` : "";
  const id = lowering.scoredAsserts?.get(statement);
  if (id !== undefined) {
    const condition = lowering.condition(statement.test, { ...state, asker: "assert" }).code;
    state.out.add(b.expression(`rt.asserts.check(${site(statement)}, ${condition}, ${stringLiteral(id)}${message})`));
    return {};
  }
  state.out.add(
    `if (!(${lowering.condition(statement.test, { ...state, asker: "assert" }).code})) throw rt.fail(${site(statement)}${message});`,
  );
  return {};
}
