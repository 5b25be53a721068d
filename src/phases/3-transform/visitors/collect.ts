import { b } from "../builders.js";
import { discard as discardValue, inert, nullValue, type Finish, type Lines, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import type { LowerState } from "../state.js";

/**
 * A construct whose value is its body's last value: the construct's statements, which set a
 * temporary (`const $kind = ...` at its end, or declared ahead); the temporary stands for it. Discarded (an expression
 * statement), the statements are written alone and the last value is only awaited.
 */
export function collect(
  kind: string,
  discard: boolean,
  state: LowerState,
  lowering: Lowering,
  build: (finish: Finish) => Lines,
  /** The temporary's type, when inferring it could be circular (see `doBlock`). */
  type?: string,
): Lowered {
  if (discard) {
    state.out.append(build(discardValue));
    return nullValue;
  }
  const target = lowering.temporary(kind);
  const lines = build({ kind: "assign", target });
  // Declared where its value is given when the construct's own list gives it; else ahead, with
  // `null` only when a path may leave the construct without giving it one.
  if (!lines.declareFinish(target, type))
    state.out.add(lines.assigns(target) ? b.let(target, "Value") : b.let(target, "Value", "null"));
  state.out.append(lines);
  return inert(target);
}
