/**
 * Finding things in the syntax tree by position. The walk is generic (every field that holds a node
 * or a list of nodes), so it needs no change when the AST gains a construct.
 */
import type { Identifier, Node } from "../ast.js";
import { boundNames } from "../phases/2-analyze/index.js";

function isNode(value: unknown): value is Node {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string" &&
    "loc" in value
  );
}

/** The nodes directly under `node`, in field order. */
export function children(node: Node): Node[] {
  const found: Node[] = [];
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) found.push(item);
    } else if (isNode(value)) {
      found.push(value);
    }
  }
  return found;
}

/** Every node of the tree, parents before children. */
export function* descendants(node: Node): Generator<Node> {
  yield node;
  for (const child of children(node)) yield* descendants(child);
}

function touches(node: Node, offset: number): boolean {
  return node.loc.start.offset <= offset && offset <= node.loc.end.offset;
}

/** The nodes whose range holds `offset` (a cursor just after a node counts), outermost first. */
export function nodesAt(root: Node, offset: number): Node[] {
  const chain: Node[] = [];
  let node: Node | undefined = root;
  while (node) {
    chain.push(node);
    const inside: Node[] = children(node).filter((child) => touches(child, offset));
    // Of two neighbours (`a`|`,`), the one the cursor is inside wins over the one it ends.
    node = inside.find((child) => offset < child.loc.end.offset) ?? inside[0];
  }
  return chain;
}

/** The name under the cursor, if any. */
export function identifierAt(root: Node, offset: number): Identifier | undefined {
  const innermost = nodesAt(root, offset).at(-1);
  return innermost?.kind === "Identifier" ? innermost : undefined;
}

/** The names that statements bind by writing to them (`x = ...`, `let x`, `output x = ...`). */
export function writtenNames(root: Node): Set<Identifier> {
  const written = new Set<Identifier>();
  for (const node of descendants(root)) {
    for (const name of boundNames(node)) written.add(name);
  }
  return written;
}

/** The first line of a node's source text: what a hover shows as its heading. */
export function firstLine(text: string, node: Node): string {
  const start = node.loc.start.offset;
  const end = text.indexOf("\n", start);
  return text.slice(start, end === -1 ? text.length : end).trimEnd();
}
