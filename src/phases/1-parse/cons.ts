/** Source ranges and the cons lists the grammar builds (flattened once by their owner). */
import type * as ast from "../../ast.js";

export type Located = { readonly loc: ast.SourceRange };

export function span(first: Located, last: Located): ast.SourceRange {
  return { start: first.loc.start, end: last.loc.end };
}

/** A left-recursive list under construction: the grammar conses, `flatten` builds the array once. */
export interface Cons<T> {
  readonly item: T;
  readonly previous: Cons<T> | null;
}

export function cons<T>(previous: Cons<T> | null, item: T): Cons<T> {
  return { item, previous };
}

export function flatten<T>(list: Cons<T> | null): T[] {
  const items: T[] = [];
  for (let node = list; node !== null; node = node.previous) items.push(node.item);
  return items.reverse();
}
