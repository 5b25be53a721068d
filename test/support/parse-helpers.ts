import { expect } from "vitest";
import type { Statement } from "../../src/ast.js";
import { parse } from "../../src/phases/1-parse/index.js";

/** The AST of a program that must parse cleanly, without locations (for shape assertions). */
export function statements(source: string): unknown[] {
  const ambiguities: number[] = [];
  const result = parse(source, { onAmbiguity: (range) => ambiguities.push(range.start.line) });
  expect(result.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`)).toEqual(
    [],
  );
  expect(ambiguities).toEqual([]);
  return withoutLocations(result.ast.body) as unknown[];
}

export function firstStatement(source: string): Statement {
  return parse(source).ast.body[0]!;
}

/** `line:column CODE message` of every diagnostic. */
export function problems(source: string): string[] {
  return parse(source).diagnostics.map((d) => `${d.range.start.line}:${d.range.start.column} ${d.code} ${d.message}`);
}

export function withoutLocations(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, inner) => (key === "loc" ? undefined : inner)));
}
