/** Which modifiers each construct takes, and which of them hold an expression to resolve (a limit). */
export type ModifierOwner = "parallel" | "loop" | "for" | "block" | "input";

export const allowedModifiers: Readonly<Record<ModifierOwner, readonly string[]>> = {
  parallel: ["on-fail", "count"],
  loop: ["max"],
  for: ["max"],
  block: ["max_depth"],
  input: ["timeout"],
};

/** `max:`, `max_depth:` and `timeout:` may be any expression; `on-fail:`, `count:` and the join strategy are written out. */
export function modifierHoldsExpression(owner: ModifierOwner, key: string): boolean {
  return allowedModifiers[owner].includes(key) && key !== "on-fail" && key !== "count";
}
