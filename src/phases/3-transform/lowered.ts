/**
 * What lowering produces, saying what it is: a value expression (and whether evaluating it does
 * anything), a statement list (and whether control leaves at its end), and what a list does with
 * its last value. Lowering decides from these, never by reading back the text it wrote.
 */
import { b, print, type Statement } from "./builders.js";

/**
 * A TypeScript expression: a `Value` (or, for conditions and text, a `boolean` or a `string`). It
 * may contain `await`: generated code runs in async functions.
 */
export interface Lowered {
  readonly code: string;
  /** It is a runtime call (`await rt...`): kept as a statement even when its value is not wanted. */
  readonly effectful: boolean;
  /** Evaluating it waits on the runtime somewhere (a session in a list, a judgment in a condition). */
  readonly awaits: boolean;
  /** The runtime call it awaits, when the expression is only that (`rt.session({ ... })`). */
  readonly call?: string;
}

/** An expression that only reads (names, literals, temporaries). */
export function inert(code: string): Lowered {
  return { code, effectful: false, awaits: false };
}

/** An expression made of others (a list, `a + b`, a template): it waits when one of them does. */
export function composed(code: string, parts: readonly Lowered[]): Lowered {
  return { code, effectful: false, awaits: parts.some((part) => part.awaits) };
}

/** An awaited runtime call. */
export function awaited(call: string): Lowered {
  return { code: `await ${call}`, effectful: true, awaits: true, call };
}

export const nullValue: Lowered = inert("null");

/** `rt.keep(source, value)`: an unbound result joins the trail; kept as a statement even when unread. */
export function kept(source: string, value: Lowered): Lowered {
  return { code: `rt.keep(${source}, ${value.code})`, effectful: true, awaits: value.awaits };
}

/** What a statement list does with the value of its last statement. */
export type Finish =
  /** `return value;` (a block body, a parallel branch, a `parallel for` or `pmap` item). */
  | { readonly kind: "return" }
  /** `target = value;` (the temporary of a block-valued construct, a `reduce` accumulator). */
  | { readonly kind: "assign"; readonly target: string }
  /** `target.push(value);` (a `for` loop's or a `map` stage's results). */
  | { readonly kind: "push"; readonly target: string }
  /** A `filter` stage: `item` is kept when the value is truthy; `test` wraps the value in that check. */
  | { readonly kind: "keep"; readonly target: string; readonly item: string; readonly test: (value: string) => string }
  /** Nobody reads the value. */
  | { readonly kind: "discard" };

export const returnValue: Finish = { kind: "return" };
export const discard: Finish = { kind: "discard" };

/** The statement that finishes a list with `value`; none when there is nothing to do. */
export function finishStatement(finish: Finish, value: Lowered): Statement | undefined {
  switch (finish.kind) {
    case "return":
      return b.code(`return ${value.code};`);
    case "assign":
      return b.assign(finish.target, value.code);
    case "push":
      return b.expression(`${finish.target}.push(${value.code})`);
    case "keep":
      return b.code(`if (${finish.test(value.code)}) ${finish.target}.push(${finish.item});`);
    case "discard":
      return value.effectful ? b.expression(value.code) : undefined;
  }
}

/**
 * A statement list being written, as built (builders.ts): each statement says whether control
 * leaves after it. Printed when the list is complete.
 */
export class Lines {
  private readonly written: Statement[] = [];
  private leaves = false;
  /** Temporaries every path to the end of the list assigns (a finish, or all the parts of a `try`). */
  private readonly assigned = new Set<string>();
  /** The list's own `target = code;` finish, which its caller may turn into the declaration. */
  private finishing: { readonly index: number; readonly target: string; readonly value: Lowered } | undefined;

  /** A statement after which control goes on; a line of code as text is one too. An empty one is left out. */
  add(...statements: readonly (Statement | string | undefined)[]): void {
    for (const statement of statements) {
      if (statement === "" || statement === undefined) continue;
      this.written.push(typeof statement === "string" ? b.code(statement) : statement);
      this.leaves = false;
    }
  }

  /** `return ...;` or `throw ...;`: control leaves the list here. */
  leave(statement: Statement | string): void {
    this.written.push(typeof statement === "string" ? b.code(statement) : statement);
    this.leaves = true;
  }

  /**
   * Control left the list earlier (a `throw`, then code that never runs, warning P040): the end of
   * the list is not reached, whatever was written after.
   */
  leftEarlier(): void {
    this.leaves = true;
  }

  /** `target = value;`: the list's finish, written at its top level (see `declareFinish`). */
  assignFinish(target: string, value: Lowered): void {
    this.finishing = { index: this.written.length, target, value };
    this.add(b.assign(target, value.code));
    this.assigned.add(target);
  }

  /** Records that every path to the end of this list assigns `target` (its own lists do). */
  markAssigned(target: string): void {
    this.assigned.add(target);
  }

  /** Whether every path that reaches the end of the list has assigned `target` (or none reaches it). */
  assigns(target: string): boolean {
    return this.leaves || this.assigned.has(target);
  }

  /**
   * Turns the list's own finish assignment of `target` into its declaration (`const target = ...;`),
   * so that the caller writing the list where it stands declares nothing ahead; false when the list
   * did not assign `target` at its top level.
   */
  declareFinish(target: string, type?: string): boolean {
    const finishing = this.finishing;
    if (finishing?.target !== target) return false;
    this.written[finishing.index] = b.const(target, finishing.value.code, type);
    return true;
  }

  /**
   * Drops the list's own finish assignment of `target` when nothing reads it (the program raises
   * an error after it): what computes the value stays, when it calls the runtime. False when the list
   * did not assign `target` at its top level.
   */
  dropFinish(target: string): boolean {
    const finishing = this.finishing;
    if (finishing?.target !== target) return false;
    if (finishing.value.effectful || finishing.value.awaits)
      this.written[finishing.index] = b.expression(finishing.value.code);
    else this.written.splice(finishing.index, 1);
    this.finishing = undefined;
    return true;
  }

  /** Another list's statements, written here in order. */
  append(lines: Lines): void {
    if (lines.written.length === 0) return;
    this.written.push(...lines.written);
    this.leaves = lines.leaves;
  }

  /** Whether control leaves at the end of the list (its last statement returns or throws). */
  get exits(): boolean {
    return this.leaves;
  }

  /** The statements, printed. */
  get statements(): readonly string[] {
    return this.written.map(print);
  }

  get isEmpty(): boolean {
    return this.written.length === 0;
  }

  /** The statements as the body of a function or block. */
  text(): string {
    return this.statements.join("\n");
  }
}
