/**
 * A statement list: its scope's names declared, each statement lowered, and its last value given
 * to the list's `Finish` (returned, assigned, pushed or dropped).
 */
import type * as ast from "../../../ast.js";
import { boundNames, branchBinding, readBeforeJoin, type SymbolInfo } from "../../2-analyze/index.js";
import { declaredKinds, type ListOptions, type Lowering } from "../lowering.js";
import { b, print } from "../builders.js";
import { Lines, finishStatement, inert, nullValue, type Finish, type Lowered } from "../lowered.js";
import { walk } from "../../../walk.js";
import { leavesLoop } from "./jumps.js";
import type { LowerState } from "../state.js";

/**
 * Lowers a statement list. With `options.scope` (the node that opens the list's scope) the names
 * the scope declares are declared here: at their binding when it is a statement of this list,
 * ahead of everything (`let x: Value = null`) when it is bound deeper (a branch, a parallel
 * branch, a `try` body).
 */
export function statementList(
  statements: readonly ast.Statement[],
  outer: LowerState,
  lowering: Lowering,
  options: ListOptions,
): Lines {
  if (endsInTransparentValue(statements, options)) return transparentEnd(statements, outer, lowering, options);
  const out = new Lines();
  const declaredHere = declareScope(statements, out, outer, lowering, options);
  const state: LowerState = { ...outer, out, declaredHere };
  const finish = options.finish;
  const wantsValue = finish !== undefined && finish.kind !== "discard";
  const finishing = options.finishLastValue ? lastValueIndex(statements) : statements.length - 1;
  // An `if`/`else` or `choice` after it whose every body gives the final result overwrites its value.
  const overwritten = options.finishLastValue === true && alwaysGivesValue(statements.slice(finishing + 1));
  // A program's final result: an `if` or `choice` after its last value gives the last value of the body that ran.
  const finalResult = options.finishLastValue ? finish : undefined;
  const inner: LowerState = { ...state, finalResult: undefined };
  const carry = options.breakCarry;
  const breaks = carry === undefined ? state.jumps : { ...state.jumps, break: [...carry, ...state.jumps.break!] };
  const transparent: LowerState = { ...state, finalResult, jumps: breaks };
  const early = earlyBreaks(statements, state, lowering, options);
  if (early !== undefined) out.add(b.let(early.target, "Value", "null"));
  let left = false;
  statements.forEach((statement, index) => {
    if (early !== undefined && index <= early.lastBreak) {
      // Before the last `break`, the values given so far are kept for it to carry; an `if`'s bodies give theirs too.
      const running = isTransparent(statement);
      const wants = !running && producesValue(statement);
      const { value } = lowering.statement(
        statement,
        running ? early.state : { ...inner, jumps: early.state.jumps },
        wants,
      );
      if (wants && value !== undefined && !out.exits) out.add(b.assign(early.target, value.code));
      left ||= out.exits;
      return;
    }
    const last = index === finishing && !overwritten;
    const branching = index > finishing && isTransparent(statement);
    const { value } = lowering.statement(statement, branching ? transparent : inner, last && wantsValue);
    // A statement that always leaves (a `do:` whose body raises) gives no value to finish with: an
    // assignment after it would never run, and would tell TypeScript that the end is reached.
    const leaves = out.exits;
    if (last && finish && value !== undefined && !leaves) finishWith(out, finish, value);
    left ||= leaves;
  });
  // What follows a statement that leaves never runs (P040), but is still written: it may declare names.
  if (left) out.leftEarlier();
  // A standing `try:` last in the list gives its own value here (its bodies' last values).
  const noValue = finishing < 0 || !(producesValue(statements[finishing]!) || attempted(statements[finishing]!));
  if (finish && !out.exits && noValue && !options.finishLastValue) finishWith(out, finish, nullValue);
  return out;
}

/**
 * Whether a list's value comes from the `if` or `choice` it ends with: their bodies are transparent,
 * for a block's result, a branch's or an item's as for a program's final result (DIALECT.md), so
 * `do check(x)` ending in `if x: session "A"` gives A's text, not `null`.
 */
function endsInTransparentValue(statements: readonly ast.Statement[], options: ListOptions): boolean {
  const finish = options.finish;
  if (finish === undefined || finish.kind === "discard" || options.finishLastValue) return false;
  const last = statements.at(-1);
  // An `if` whose bodies give nothing (`if done: break`, or one that did not run) keeps the value before it.
  return last !== undefined && branchesGive(last) !== undefined && tailGives(statements) === "value";
}

/**
 * What a list's end gives to a transparent finish: `value` when its last statement gives one (an
 * `output` leaves a block instead) or it ends in an `if`/`choice` whose bodies give one; `none` when
 * it gives nothing (a `continue`, a `throw`); `unclear` for any other shape (a value then a `return`
 * or a loop), which keeps its value as it was rather than assign what a later statement drops.
 */
function tailGives(statements: readonly ast.Statement[]): "value" | "none" | "unclear" {
  const last = statements.at(-1);
  // A body that ends by raising (`let draft = ...` then `throw`) never gives its value: a `catch:` gives it.
  // One that ends in `continue` gives none either: the `continue` ends the item (a `for` keeps `null`).
  if (last === undefined || last.kind === "Throw" || last.kind === "Continue") return "none";
  // A body that gives a value and then breaks (`session "Final"` then `break`) ends the loop with it (`breakCarry`).
  if (last.kind === "Break") return statements.length > 1 ? tailGives(statements.slice(0, -1)) : "none";
  const lastValue = lastValueIndex(statements);
  if (lastValue === statements.length - 1) return last.kind === "Output" ? "unclear" : "value";
  // A `try:` or an `if` before the last statement may give the value: its bodies are transparent too.
  const between = statements.slice(lastValue + 1, -1).map(branchesGive);
  if (between.includes("unclear")) return "unclear";
  const givenBefore = lastValue >= 0 || between.includes("value");
  const gives = branchesGive(last);
  if (gives === undefined) return givenBefore ? "unclear" : "none";
  if (gives === "unclear") return "unclear";
  return gives === "value" || givenBefore ? "value" : "none";
}

/** What an `if`'s or `choice`'s bodies give together (`tailGives`); undefined for any other statement. */
function branchesGive(statement: ast.Statement): "value" | "none" | "unclear" | undefined {
  const bodies = transparentBodies(statement);
  if (bodies === undefined) return undefined;
  const gives = bodies.map(tailGives);
  return gives.includes("unclear") ? "unclear" : gives.includes("value") ? "value" : "none";
}

/** Such a list: its value set as a program's final result is, then finished with it. */
function transparentEnd(
  statements: readonly ast.Statement[],
  outer: LowerState,
  lowering: Lowering,
  options: ListOptions,
): Lines {
  const finish = options.finish!;
  const target = lowering.temporary("result");
  const inner = statementList(statements, outer, lowering, {
    ...options,
    finish: { kind: "assign", target },
    finishLastValue: true,
    breakCarry: isLoop(options.scope) ? breakCarry(statements, outer, finish, target) : undefined,
  });
  const out = new Lines();
  // Given on every path (a value statement first, or an `if`/`else` every body of which gives one, before
  // any `break` that carries it): no `null`.
  const lastValue = lastValueIndex(statements);
  const given = lastValue >= 0 || alwaysGivesValue(beforeBreak(statements));
  // Set once, by the last value, when no body after it holds a value (`if done: break`): a constant. A body
  // that gives none may still set it before it leaves (`let d = ...` then `throw` or `continue`).
  const once = lastValue >= 0 && !finalResultInBranches(statements);
  if (!(once && inner.declareFinish(target))) out.add(given ? b.let(target, "Value") : b.let(target, "Value", "null"));
  out.append(inner);
  if (!inner.exits) finishWith(out, finish, inert(target));
  return out;
}

/**
 * What a `break` in the `if`s that end a loop iteration's list does first: finish the iteration with
 * its value so far, as the end of the list would (a `repeat`'s or `loop`'s value is then that
 * iteration's, and a `for` keeps it as its last item). Undefined when no `break` there leaves the
 * loop, or the iteration has no value statement of its own before them.
 */
function breakCarry(
  statements: readonly ast.Statement[],
  state: LowerState,
  finish: Finish,
  target: string,
): readonly string[] | undefined {
  if (state.jumps.break === undefined || (finish.kind !== "assign" && finish.kind !== "push")) return undefined;
  // Only after a value of the iteration's own: a `break` in an iteration that gave none adds no item.
  const lastValue = lastValueIndex(statements);
  if (!statements.slice(lastValue + 1).some(breaksHere)) return undefined;
  if (lastValue < 0 && !givesBeforeBreaking(statements)) return undefined;
  return [print(finishStatement(finish, inert(target))!)];
}

/**
 * A loop body's `break`s before its last statement (`let draft = session "Draft"` / `if **good
 * enough**:` / `break` / `session "Revise"`): the iteration ends with the value given before the
 * `break`, as docs/language.md says, so the values up to the last such statement are kept in `target`,
 * which each `break` there carries to the iteration's finish. Undefined when no `break` stands before
 * the last statement (`breakCarry` serves one in the `if`s the list ends with), or nothing gives a value
 * before the first one (a `break` in an iteration that gave none adds no item).
 */
function earlyBreaks(
  statements: readonly ast.Statement[],
  state: LowerState,
  lowering: Lowering,
  options: ListOptions,
): { readonly target: string; readonly lastBreak: number; readonly state: LowerState } | undefined {
  const finish = options.finish;
  if (!isLoop(options.scope) || options.finishLastValue || state.jumps.break === undefined) return undefined;
  if (finish === undefined || (finish.kind !== "assign" && finish.kind !== "push")) return undefined;
  let lastBreak = -1;
  statements.slice(0, -1).forEach((statement, index) => {
    if (breaksHere(statement)) lastBreak = index;
  });
  if (lastBreak < 0) return undefined;
  const firstBreak = statements.findIndex(breaksHere);
  if (lastValueIndex(statements.slice(0, firstBreak)) < 0 && !givesBeforeBreaking(statements)) return undefined;
  const target = lowering.temporary("result");
  const carry = print(finishStatement(finish, inert(target))!);
  const jumps = { ...state.jumps, break: [carry, ...state.jumps.break] };
  return { target, lastBreak, state: { ...state, finalResult: { kind: "assign", target }, jumps } };
}

/**
 * Whether a list with no value statement of its own may give a value before a `break` leaves it: a
 * `try:` or `if` before its first statement that breaks, or a body of that one that gives a value
 * and then breaks (`if **done**:` / `session "Final"` / `break`).
 */
function givesBeforeBreaking(statements: readonly ast.Statement[]): boolean {
  const firstBreak = statements.findIndex(breaksHere);
  if (beforeBreak(statements).some((statement) => branchesGive(statement) === "value")) return true;
  const breaking = statements[firstBreak];
  return (
    breaking !== undefined &&
    (transparentBodies(breaking) ?? []).some((body) => body.at(-1)?.kind === "Break" && tailGives(body) === "value")
  );
}

/** The statements before a list's first statement that breaks (all of them when none does). */
function beforeBreak(statements: readonly ast.Statement[]): readonly ast.Statement[] {
  const firstBreak = statements.findIndex(breaksHere);
  return firstBreak < 0 ? statements : statements.slice(0, firstBreak);
}

/**
 * Whether the list is a loop's own body, whose finish a `break` may carry: a `do:` body's finish
 * is a temporary declared where the body ends, after the `if`s that would carry it.
 */
function isLoop(scope: ast.Node | null): boolean {
  return scope?.kind === "Repeat" || scope?.kind === "ForEach" || scope?.kind === "Loop";
}

/** Whether a `break` in the statement leaves the loop whose body holds it (not one nested inside it). */
function breaksHere(statement: ast.Statement): boolean {
  let found = false;
  walk(statement, (node) => {
    if (found || leavesLoop(node)) return false;
    if (node.kind === "Break") found = true;
    return !found;
  });
  return found;
}

function finishWith(out: Lines, finish: Finish, value: Lowered): void {
  if (finish.kind === "assign") return out.assignFinish(finish.target, value);
  const statement = finishStatement(finish, value);
  if (finish.kind === "return") out.leave(statement!);
  else out.add(statement);
}

function declareScope(
  statements: readonly ast.Statement[],
  out: Lines,
  state: LowerState,
  lowering: Lowering,
  options: ListOptions,
): Set<SymbolInfo> {
  const scope = options.scope ? lowering.analysis.scopes.get(options.scope) : undefined;
  // An input stands where it is asked (a block reading it runs after it); one asked deeper is declared ahead.
  const declarable = (symbol: SymbolInfo): boolean =>
    symbol.scope === scope &&
    declaredKinds.has(symbol.kind) &&
    !lowering.promoted.has(symbol) &&
    !state.declaredBeforeLoop.has(symbol) &&
    (symbol.kind === "input" || !lowering.readFromFunctions.has(symbol));
  const directNames = new Set<ast.Identifier>();
  for (const statement of statements) {
    if (statement.kind === "Input") directNames.add(statement.name);
    for (const name of boundNames(statement)) directNames.add(name);
    for (const name of parallelNames(statement, lowering, declarable)) directNames.add(name);
  }
  const here = new Set<SymbolInfo>();
  const ahead: SymbolInfo[] = [...(options.declareAhead ?? [])];
  for (const symbol of scope?.symbols.values() ?? []) {
    if (
      !declaredKinds.has(symbol.kind) ||
      lowering.promoted.has(symbol) ||
      state.declaredBeforeLoop.has(symbol) ||
      lowering.unnamed(symbol)
    )
      continue;
    if (directNames.has(symbol.declaration) && declarable(symbol)) here.add(symbol);
    else ahead.push(symbol);
  }
  for (const symbol of ahead) {
    // A block's binding read outside it: the runtime holds the value its last finished call left.
    if (lowering.promoted.has(symbol)) out.add(b.const(lowering.lastCallName(symbol), "rt.lastCall()"));
    // Bound on every path before it is read (every option of a `choice`, a `parallel`'s join): TypeScript checks that too.
    else if (lowering.boundBeforeRead(symbol)) out.add(b.let(lowering.symbolName(symbol), lowering.typeOf(symbol)));
    else out.add(b.let(lowering.symbolName(symbol), lowering.typeOf(symbol, true), "null"));
  }
  return here;
}

/**
 * The names a `parallel:` standing in the statement binds in its branches, when they can be
 * declared where the join destructures them (`const [a, b] = await Promise.all(...)`): each bound
 * once, by that branch.
 */
function parallelNames(
  statement: ast.Statement,
  lowering: Lowering,
  declarable: (symbol: SymbolInfo) => boolean,
): ast.Identifier[] {
  const value =
    statement.kind === "ExpressionStatement"
      ? statement.expression
      : statement.kind === "Binding" || statement.kind === "Output" || statement.kind === "Destructure"
        ? statement.value
        : undefined;
  if (value?.kind !== "Parallel") return [];
  const names = value.branches.map(branchBinding).filter((name) => name !== null);
  const declaredByBranch = names.every((name) => {
    const symbol = lowering.analysis.references.get(name);
    return symbol !== undefined && symbol.declaration === name && !symbol.reassigned && declarable(symbol);
  });
  return declaredByBranch && !readBeforeJoin(value, lowering.analysis) ? names : [];
}

/** The last statement that leaves a value (a program's final result), or -1. */
export function lastValueIndex(statements: readonly ast.Statement[]): number {
  for (let index = statements.length - 1; index >= 0; index--) if (producesValue(statements[index]!)) return index;
  return -1;
}

/**
 * Whether a program's final result can come from inside an `if` or `choice` after its last value
 * statement (their bodies are transparent): then it is a variable that those bodies assign.
 */
export function finalResultInBranches(statements: readonly ast.Statement[]): boolean {
  return statements
    .slice(lastValueIndex(statements) + 1)
    .some((statement) =>
      (transparentBodies(statement) ?? []).some((body) => lastValueIndex(body) >= 0 || finalResultInBranches(body)),
    );
}

/**
 * Whether the final result always comes from the statements' branches: one of them is an `if` with an
 * `else` or a `choice` every body of which gives a value (directly, or again through its own branches).
 */
export function alwaysGivesValue(statements: readonly ast.Statement[]): boolean {
  const givesValue = (body: readonly ast.Statement[]): boolean => lastValueIndex(body) >= 0 || alwaysGivesValue(body);
  return statements.some((statement) => {
    if (statement.kind === "If")
      return (
        statement.alternate !== null &&
        [...statement.clauses.map((clause) => clause.body), statement.alternate].every(givesValue)
      );
    const attempt = attempted(statement);
    if (attempt !== undefined) return (transparentBodies(statement) ?? []).every(givesValue);
    return (
      statement.kind === "Choice" &&
      statement.options.length > 0 &&
      statement.options.map((option) => option.body).every(givesValue)
    );
  });
}

/**
 * The bodies whose values are the statement's, as a program's final result sees them (DIALECT.md:
 * `if`/`elif`/`else`/`choice`/`try`/`catch` bodies are transparent): an `if`'s clauses and its
 * `else` (empty when it has none), a `choice`'s options, a standing `try:`'s body and `catch:`
 * (`finally:` never gives the value); undefined for any other statement.
 */
function transparentBodies(statement: ast.Statement): (readonly ast.Statement[])[] | undefined {
  if (statement.kind === "If") return [...statement.clauses.map((clause) => clause.body), statement.alternate ?? []];
  if (statement.kind === "Choice") return statement.options.map((option) => option.body);
  const attempt = attempted(statement);
  if (attempt !== undefined) return [attempt.body, ...(attempt.handler ? [attempt.handler.body] : [])];
  return undefined;
}

/** Whether the statement's bodies are transparent: an `if`, a `choice`, a standing `try:`. */
export function isTransparent(statement: ast.Statement): boolean {
  return transparentBodies(statement) !== undefined;
}

/** The `try:` a statement is when it stands alone (not bound to a name). */
function attempted(statement: ast.Statement): ast.TryExpression | undefined {
  return statement.kind === "ExpressionStatement" && statement.expression.kind === "Try"
    ? statement.expression
    : undefined;
}

/** Whether a statement leaves a value for the list's finish; after any other the finish gets `null`. */
function producesValue(statement: ast.Statement): boolean {
  return (
    (statement.kind === "ExpressionStatement" && attempted(statement) === undefined) ||
    statement.kind === "Binding" ||
    statement.kind === "Destructure" ||
    (statement.kind === "Output" && statement.name !== null) ||
    statement.kind === "Input"
  );
}
