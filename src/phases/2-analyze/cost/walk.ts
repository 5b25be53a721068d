/**
 * The nodes directly under a node, in source order, found by shape: every property that holds a
 * node (an object with a `kind`) or a list of them. Generic on purpose: it needs no change when the
 * AST grows a construct.
 */
import type { Node } from "../../../ast.js";

export function childNodes(node: Node): Node[] {
  const children: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc") continue;
    if (Array.isArray(value)) for (const item of value) pushNode(children, item);
    else pushNode(children, value);
  }
  return children;
}

/** Every node of the tree under `root` (itself included), depth first, in source order. */
export function* descendants(root: Node): Generator<Node> {
  yield root;
  for (const child of childNodes(root)) yield* descendants(child);
}

function pushNode(children: Node[], value: unknown): void {
  if (typeof value === "object" && value !== null && typeof (value as { kind?: unknown }).kind === "string") children.push(value as Node);
}
