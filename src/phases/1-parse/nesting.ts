/**
 * How deeply a statement nests. Every phase after parsing (analysis, lowering, prettier, the
 * TypeScript checker) walks the tree recursively, and so runs out of stack somewhere past a few
 * hundred levels: a statement nested deeper than `nestingLimit` is a diagnostic, never a crash.
 * The walk itself keeps its own stack, so no depth can overflow it.
 */
import type { Node } from "../../ast.js";

/** Levels of nodes (statements, bodies, sub-expressions) one statement may hold. */
export const nestingLimit = 100;

/**
 * Lists and records nested in one another: TypeScript gives up comparing a literal's type with
 * `Value` past about 45 levels ("excessive stack depth"), far sooner than anything else.
 */
export const literalNestingLimit = 32;

export interface TooDeep {
  /** The first node past the limit. */
  readonly node: Node;
  readonly limit: number;
  /** Whether lists and records are what nest too deeply. */
  readonly literals: boolean;
}

/** The first node found past a limit below `root` (root is level 1), if any. */
export function tooDeep(root: Node): TooDeep | undefined {
  const stack: Array<readonly [Node, number, number]> = [[root, 1, isLiteral(root) ? 1 : 0]];
  while (stack.length > 0) {
    const [node, depth, literals] = stack.pop()!;
    if (depth > nestingLimit) return { node, limit: nestingLimit, literals: false };
    if (literals > literalNestingLimit) return { node, limit: literalNestingLimit, literals: true };
    // Pushed last to first, so the first node past the limit in source order is the one reported.
    for (const [child, levels] of children(node).reverse())
      stack.push([child, depth + levels, literals + (isLiteral(child) ? 1 : 0)]);
  }
  return undefined;
}

function isLiteral(node: Node): boolean {
  return node.kind === "Array" || node.kind === "Object";
}

/** The deepest level below `root` (for measuring programs). */
export function depthOf(root: Node): number {
  let deepest = 0;
  const stack: Array<readonly [Node, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    for (const [child, levels] of children(node)) stack.push([child, depth + levels]);
  }
  return deepest;
}

/**
 * A node's direct children (every field that holds a node or a list of nodes), each with the
 * levels it sits below its parent: one, except where a flat list in `.prose` becomes nested code.
 * Each `elif` is an `else if` inside the one before it, and each pipeline stage wraps the stages
 * before it, so they count a level each.
 */
function children(node: Node): Array<readonly [Node, number]> {
  if (node.kind === "If") {
    const clauses = node.clauses.map((clause, index) => [clause, index + 1] as const);
    return [...clauses, ...(node.alternate ?? []).map((statement) => [statement, node.clauses.length + 1] as const)];
  }
  if (node.kind === "Pipeline") {
    return [[node.source, node.stages.length + 1], ...node.stages.map((stage, index) => [stage, index + 1] as const)];
  }
  const found: Array<readonly [Node, number]> = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc" || value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) found.push([item, 1]);
    } else if (isNode(value)) {
      found.push([value, 1]);
    }
  }
  return found;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { kind?: unknown }).kind === "string";
}
