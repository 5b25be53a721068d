import { describe, expect, it } from "vitest";
import type { Node } from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { childrenOf, walk } from "../../src/walk.js";
import { corpusPrograms } from "../support/corpus.js";

/** Every node object held by a node's fields, found by looking at the data itself. */
function reflectedChildren(node: Node): Node[] {
  const found: Node[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === "object" && value !== null && "kind" in value && "loc" in value)
      found.push(value as Node);
  };
  for (const [key, value] of Object.entries(node)) if (key !== "loc") collect(value);
  return found;
}

const programs = corpusPrograms.map((program) => ({ name: program.name, ast: parse(program.source).ast }));

describe("the child walker", () => {
  it.each(programs)("reaches every node of $name once, children in source order", ({ ast }) => {
    const seen = new Set<Node>();
    walk(ast, (node) => {
      expect(seen.has(node)).toBe(false);
      seen.add(node);
      const children = childrenOf(node);
      expect(new Set(children)).toEqual(new Set(reflectedChildren(node)));
      const starts = children.map((child) => child.loc.start.offset);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    });
    expect(seen.size).toBeGreaterThan(ast.body.length);
  });

  it("skips a node's children when `enter` returns false", () => {
    const { ast } = parse('block b:\n  session "inside"\nsession "outside"\n');
    const strings: string[] = [];
    walk(ast, (node) => {
      if (node.kind === "String") strings.push(node.value);
      return node.kind !== "Block";
    });
    expect(strings).toEqual(["outside"]);
  });
});
