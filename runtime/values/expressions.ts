/**
 * Value helpers that generated code uses for expressions. They are pure and deterministic: no model
 * is ever asked here (text that needs interpretation goes through `Runtime.list` / `field` / `truthy`).
 */
import { ProseError } from "../errors.js";
import type { Value } from "../types.js";

type ValueRecord = { readonly [key: string]: Value };

/**
 * How a value reads inside a prompt or an interpolation: text as is, numbers and booleans as written,
 * `null` as the empty string, a list of texts as a markdown list, any other list or record as JSON.
 * An empty list has no text to list: it reads `[]` (JSON), so the model is told there is nothing
 * rather than shown nothing (`Sources: ` would read as a value left out).
 */
export function text(value: Value): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isList(value) && value.length > 0 && value.every((item) => typeof item === "string")) {
    return value.map((item) => `- ${(item as string).replace(/\n/g, "\n  ")}`).join("\n");
  }
  return JSON.stringify(value, null, 2);
}

/** `+`: numbers add (numeric text counts as a number next to a number), lists append, records merge, else text joins. */
export function add(a: Value, b: Value): Value {
  if (isList(a)) return isList(b) ? [...a, ...b] : [...a, b];
  if (isList(b)) return [a, ...b];
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (typeof a === "number" || typeof b === "number") {
    const left = asNumber(a);
    const right = asNumber(b);
    if (left !== undefined && right !== undefined) return left + right;
  }
  if (isRecord(a) && isRecord(b)) return { ...a, ...b };
  return text(a) + text(b);
}

export function subtract(a: Value, b: Value): Value {
  return arithmetic("subtract", a, b, (x, y) => x - y);
}

export function multiply(a: Value, b: Value): Value {
  return arithmetic("multiply", a, b, (x, y) => x * y);
}

export function divide(a: Value, b: Value): Value {
  return arithmetic("divide", a, b, (x, y) => {
    if (y === 0) throw new ProseError("Division by zero.");
    return x / y;
  });
}

/**
 * `==` and `is`: structural equality. Text compares with surrounding whitespace ignored (session
 * results end in newlines); a number equals numeric text of the same value; a boolean equals the
 * text `true` / `false` in any case.
 */
export function equals(a: Value, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") return a.trim() === b.trim();
  if (typeof a === "number" || typeof b === "number") {
    const left = asNumber(a);
    const right = asNumber(b);
    return left !== undefined && right !== undefined && left === right;
  }
  if (typeof a === "boolean" || typeof b === "boolean") {
    const left = asBoolean(a);
    const right = asBoolean(b);
    return left !== undefined && left === right;
  }
  if (a === null || b === null) return a === b;
  if (typeof a === "string" || typeof b === "string") return false;
  if (isList(a) || isList(b)) {
    return isList(a) && isList(b) && a.length === b.length && a.every((item, index) => equals(item, b[index] as Value));
  }
  const leftKeys = Object.keys(a);
  const rightKeys = Object.keys(b);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every((key) => key in b && equals(a[key] as Value, (b as ValueRecord)[key] as Value))
  );
}

/**
 * `<`, `<=`, `>`, `>=`: negative, zero or positive. Numbers (and numeric text) compare numerically,
 * other text by code points; anything else cannot be ordered.
 */
export function compare(a: Value, b: Value): number {
  const left = asNumber(a);
  const right = asNumber(b);
  if (left !== undefined && right !== undefined) return left - right;
  if (typeof a === "string" && typeof b === "string") {
    const x = a.trim();
    const y = b.trim();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  throw new ProseError(`Cannot compare ${describe(a)} with ${describe(b)}: only numbers and text can be ordered.`);
}

/**
 * Deterministic truthiness: `false`, `null`, `0`, empty or blank text, the texts `false`, `no`, `0`
 * and `null` (any case), empty lists and empty records are false; everything else is true.
 */
export function isTruthy(value: Value): boolean {
  if (value === null) return false;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  if (typeof value === "string") return !FALSE_WORDS.has(value.trim().toLowerCase());
  if (isList(value)) return value.length > 0;
  return Object.keys(value).length > 0;
}

const FALSE_WORDS = new Set(["", "false", "no", "0", "null"]);

const NUMERIC_TEXT = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** A number, or text that is exactly a number; otherwise undefined. */
export function asNumber(value: Value): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && NUMERIC_TEXT.test(value)) return Number(value);
  return undefined;
}

function asBoolean(value: Value): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const word = value.trim().toLowerCase();
  return word === "true" ? true : word === "false" ? false : undefined;
}

export function isList(value: Value): value is readonly Value[] {
  return Array.isArray(value);
}

export function isRecord(value: Value): value is ValueRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function arithmetic(operation: string, a: Value, b: Value, apply: (x: number, y: number) => number): number {
  const left = asNumber(a);
  const right = asNumber(b);
  if (left === undefined || right === undefined) {
    throw new ProseError(`Cannot ${operation} ${describe(a)} and ${describe(b)}: both must be numbers.`);
  }
  return apply(left, right);
}

function describe(value: Value): string {
  if (value === null) return "null";
  if (isList(value)) return "a list";
  if (typeof value === "object") return "a record";
  if (typeof value === "string")
    return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}
