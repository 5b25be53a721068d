/**
 * How deep a value from a model may nest. A model may answer with JSON nested 100,000 levels deep:
 * `JSON.parse` reads it, but every recursive walk after it (redaction, the journal's JSON, the
 * trace, validation messages) overflows the stack. So what a model gives is measured once, without
 * recursion, before anything walks it, and refused past this depth.
 */

/**
 * Levels of lists and records a value from a model may nest, its outermost counted: well past a
 * `returns:` type's (a program's lists and records nest at most 32 levels) and any tool's input.
 */
export const MAX_VALUE_DEPTH = 64;

/** The nesting depth of a JSON value (a scalar 0, `[]` and `{}` 1), measured without recursion, stopping past `limit`. */
export function nestingDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const pending: Array<readonly [unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [each, depth] = pending.pop()!;
    if (each === null || typeof each !== "object") continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(each) ? each : Object.values(each)) pending.push([child, level]);
  }
  return deepest;
}
