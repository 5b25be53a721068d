import { discard as discardValue, inert, nullValue, type Finish, type Lines, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import type { LowerState } from "../state.js";

/**
 * A construct whose value is its body's last value: `let $kind: Value = null;` and the
 * construct's statements, which set it; the temporary stands for it. Discarded (an expression
 * statement), the statements are written alone and the last value is only awaited.
 */
export function collect(
  kind: string,
  discard: boolean,
  state: LowerState,
  lowering: Lowering,
  build: (finish: Finish) => Lines,
): Lowered {
  if (discard) {
    state.out.append(build(discardValue));
    return nullValue;
  }
  const target = lowering.temporary(kind);
  state.out.add(`let ${target}: Value = null;`);
  state.out.append(build({ kind: "assign", target }));
  return inert(target);
}
