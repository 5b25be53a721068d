/**
 * Loop variables and callback parameters nothing reads, written as a reviewer would (TypeScript's
 * `noUnusedLocals` and typescript-eslint's `no-unused-vars` flag them; `_x` passes the first, not
 * the second). What reads them is only known once the module is written (a judgment shows the loop
 * item to the model: `{ x }`), so this works on the module's syntax tree, from `tidy.ts`'s counts:
 *
 * - `for (const x of items)` whose `x` nothing reads counts down instead:
 *   `for (let $remaining = (items).length; $remaining > 0; $remaining--)`;
 * - `for (const [i, x] of (items).entries())` loses what it does not read: `[i]`, `x of items`, or
 *   the count above;
 * - a callback's trailing parameters nothing reads go (`async (item) => ...` becomes `async () => ...`).
 */
import type { Node } from "./estree.js";

export interface Edit {
  readonly range: readonly [number, number];
  readonly text: string;
}

interface Counted {
  readonly reads: number;
}

export interface ForOfLoop {
  readonly node: Node;
  /** What its head declares, by name. */
  readonly variables: ReadonlyMap<string, Counted>;
}

export interface Callback {
  readonly node: Node;
  /** Each parameter's binding; undefined for a pattern (left as it is). */
  readonly params: readonly (Counted | undefined)[];
}

export function unreadVariableEdits(code: string, loops: readonly ForOfLoop[], callbacks: readonly Callback[]): Edit[] {
  const counters = new Counters(code);
  return [
    ...loops.flatMap((loop) => loopEdits(code, loop, counters)),
    ...callbacks.flatMap((callback) => parameterEdits(code, callback)),
  ];
}

function loopEdits(code: string, { node, variables }: ForOfLoop, counters: Counters): Edit[] {
  const declaration = node["left"] as Node;
  const items = node["right"] as Node;
  const declarators = declaration["declarations"] as Node[] | undefined;
  if (declaration.type !== "VariableDeclaration" || declarators?.length !== 1) return [];
  const id = declarators[0]!["id"] as Node;
  const unread = (name: Node | null | undefined): boolean =>
    name?.type === "Identifier" && variables.get(name["name"] as string)?.reads === 0;
  const head = (text: string): Edit => ({ range: [declaration.range[0], items.range[1]], text });
  const countDown = (list: Node): Edit => {
    const counter = counters.next();
    return head(`let ${counter} = (${slice(code, list)}).length; ${counter} > 0; ${counter}--`);
  };
  if (id.type === "Identifier") return unread(id) ? [countDown(items)] : [];
  const listed = entriesOf(items);
  const [index, item, ...rest] = (id["elements"] as (Node | null)[] | undefined) ?? [];
  if (id.type !== "ArrayPattern" || listed === undefined || !index || !item || rest.length > 0) return [];
  if (unread(index) && unread(item)) return [countDown(listed)];
  if (unread(item)) return [{ range: [index.range[1], item.range[1]], text: "" }];
  if (unread(index)) return [head(`${declaration["kind"] as string} ${slice(code, item)} of ${slice(code, listed)}`)];
  return [];
}

/** `list` of `(list).entries()`. */
function entriesOf(items: Node): Node | undefined {
  const callee = items["callee"] as Node | undefined;
  const property = callee?.["property"] as Node | undefined;
  const called = items.type === "CallExpression" && (items["arguments"] as Node[]).length === 0;
  return called && callee?.type === "MemberExpression" && property?.["name"] === "entries"
    ? (callee["object"] as Node)
    : undefined;
}

function parameterEdits(code: string, { node, params }: Callback): Edit[] {
  const nodes = node["params"] as Node[];
  let kept = params.length;
  while (kept > 0 && params[kept - 1]?.reads === 0) kept--;
  if (kept === params.length) return [];
  const start = kept > 0 ? nodes[kept - 1]!.range[1] : nodes[0]!.range[0];
  // `x => ...` without parentheses would need them back: generated callbacks always have them.
  if (kept === 0 && code[start - 1] !== "(") return [];
  return [{ range: [start, nodes.at(-1)!.range[1]], text: "" }];
}

function slice(code: string, node: Node): string {
  return code.slice(node.range[0], node.range[1]);
}

/** Fresh `$remaining` names: the module's temporaries are `$`-names, numbered from 2 as lowering numbers them. */
class Counters {
  private readonly taken: Set<string>;
  private count = 0;

  constructor(code: string) {
    this.taken = new Set(code.match(/\$remaining\d*/g));
  }

  next(): string {
    let name: string;
    do name = `$remaining${++this.count === 1 ? "" : this.count}`;
    while (this.taken.has(name));
    return name;
  }
}
