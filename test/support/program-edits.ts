/**
 * Edits that break a program wherever they land, of the kinds people make: a block header's colon
 * deleted, a statement indented by one space, a name nobody bound, a stray `**`. Each must give an
 * error (test/soundness/generated-edits.test.ts in process, edits-cli.slow.test.ts through the CLI).
 */
import type * as ast from "../../src/ast.js";
import { checkSource } from "../../src/pipeline.js";
import { walk } from "../../src/walk.js";
import { pick } from "./random.js";

/** The lines (0-based) that begin a statement, outside multi-line strings and discretions. */
function statementLines(source: string): number[] {
  const lines = source.split("\n");
  const found = new Set<number>();
  for (const statement of checkSource(source).ast.body)
    walk(statement, (node) => {
      if ("kind" in node && /Statement$|^(Binding|Output|If|Throw|Assert|Return|Break|Continue)$/.test(node.kind))
        found.add((node as ast.Node).loc.start.line - 1);
      return true;
    });
  return [...found].filter((line) => !/"""|\*\*\*|\*\*\s*$|#/.test(lines[line]!)).sort((a, b) => a - b);
}

export type Edit = (
  lines: readonly string[],
  random: () => number,
  candidates: readonly number[],
) => string[] | undefined;

/** Edits that break a program wherever they land: each must be reported as an error. */
export const edits: Record<string, Edit> = {
  "a block header's colon deleted": (lines, random) => {
    const headers = lines.flatMap((line, index) =>
      /^\s*(if|elif|else|for|parallel|repeat|loop|try|catch|finally|do|block|choice|option)\b.*:\s*$/.test(line) &&
      !line.includes('"""')
        ? [index]
        : [],
    );
    if (headers.length === 0) return undefined;
    const index = pick(random, headers);
    return lines.with(index, lines[index]!.replace(/:\s*$/, ""));
  },
  // A statement after a sibling (not the first of its body, whose indentation is free).
  "a statement indented by one space": (lines, random, candidates) => {
    const indent = (line: string) => /^\s*/.exec(line)![0];
    const siblings = candidates.filter(
      (index) => candidates.includes(index - 1) && indent(lines[index - 1]!) === indent(lines[index]!),
    );
    if (siblings.length === 0) return undefined;
    const index = pick(random, siblings);
    return lines.with(index, ` ${lines[index]!}`);
  },
  "a name nobody bound": (lines, random, candidates) => {
    const index = pick(random, candidates);
    const indent = /^\s*/.exec(lines[index]!)![0];
    return lines.toSpliced(index, 0, `${indent}let probe-value = nobody-bound-this + 1`);
  },
  "a stray `**`": (lines, random, candidates) => {
    const index = pick(random, candidates);
    return lines.with(index, `${lines[index]!.trimEnd()} **`);
  },
};

/** `source` with the edit `name` applied (seeded by `random`), or undefined when it has nowhere to land. */
export function edited(source: string, name: string, random: () => number): string | undefined {
  const candidates = statementLines(source);
  if (candidates.length === 0) return undefined;
  return edits[name]!(source.split("\n"), random, candidates)?.join("\n");
}
