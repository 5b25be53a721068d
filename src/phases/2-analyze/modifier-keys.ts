/** Which modifiers each construct takes (the vocabulary's `modifierKeys`), and which of them hold an expression to resolve (a limit). */
import {
  exhaustive,
  isOneOf,
  modifierKeys,
  type ModifierKey,
  type ModifierOwner,
} from "../../../runtime/vocabulary.js";

export type { ModifierOwner };

/** Whether `owner` takes the modifier `key`. */
export function isModifierOf(owner: ModifierOwner, key: string): key is ModifierKey {
  return isOneOf(modifierKeys[owner], key);
}

/** `max:`, `max_depth:` and `timeout:` may be any expression; `on-fail:`, `count:` and the join strategy are written out. */
export function modifierHoldsExpression(owner: ModifierOwner, key: string): boolean {
  if (!isModifierOf(owner, key)) return false;
  switch (key) {
    case "max":
    case "max_depth":
    case "timeout":
      return true;
    case "on-fail":
    case "count":
      return false;
    default:
      return exhaustive(key);
  }
}
