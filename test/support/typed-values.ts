/**
 * Random `returns:` types (DIALECT.md, "Typed results") with answers that fit them and answers that
 * do not, for the property test of typed results: the type as a `.prose` file writes it and as the
 * app's TypeScript should see it, and a checker of that type written apart from the runtime's
 * validator, which says which answers fit.
 */
import { pick, seededRandom } from "./random.js";

export type ResultType =
  | { readonly kind: "string" | "number" | "boolean" | "null" }
  | { readonly kind: "literal"; readonly value: string }
  | { readonly kind: "union"; readonly members: readonly ResultType[] }
  | { readonly kind: "list"; readonly item: ResultType; readonly bracketed: boolean }
  | { readonly kind: "record"; readonly fields: readonly Field[] };

interface Field {
  readonly key: string;
  readonly optional: boolean;
  readonly type: ResultType;
}

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

const literals = ["low", "medium", "high", "ok", "a b", "Ünïcode", "x-y"];
const keys = ["title", "severity", "detail", "n", "items", "odd key", "kebab-name", "déjà", "ok"];
const strings = ["", "plain", 'with "quotes"', "two\nlines", "émoji 🎉", "{braces}"];
const numbers = [0, 1, -7, 3.25, 1e6, -0.5];

export function randomType(random: () => number, depth = 0): ResultType {
  const roll = random();
  if (depth >= 3 || roll < 0.35) return { kind: pick(random, ["string", "number", "boolean", "null"] as const) };
  if (roll < 0.45) return { kind: "literal", value: pick(random, literals) };
  if (roll < 0.6) {
    const members: ResultType[] = [];
    for (let index = 0, count = 2 + Math.floor(random() * 2); index < count; index++) {
      const member =
        random() < 0.6 ? { kind: "literal" as const, value: pick(random, literals) } : randomType(random, depth + 1);
      // A union inside a union is the same union: write its members.
      members.push(...(member.kind === "union" ? member.members : [member]));
    }
    return { kind: "union", members };
  }
  if (roll < 0.78) {
    const item = randomType(random, depth + 1);
    return { kind: "list", item, bracketed: item.kind === "union" || random() < 0.5 };
  }
  const fields: Field[] = [];
  const count = 1 + Math.floor(random() * 4);
  for (let index = 0; index < count; index++) {
    const key = pick(random, keys);
    if (fields.some((field) => field.key === key)) continue;
    fields.push({ key, optional: random() < 0.35, type: randomType(random, depth + 1) });
  }
  return { kind: "record", fields };
}

const plainKey = (key: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key);

/** The type as a `returns:` writes it. */
export function proseType(type: ResultType): string {
  switch (type.kind) {
    case "literal":
      return JSON.stringify(type.value);
    case "union":
      return type.members.map(proseType).join(" | ");
    case "list":
      return type.bracketed ? `[${proseType(type.item)}]` : `${proseType(type.item)}[]`;
    case "record":
      return `{ ${type.fields
        .map(
          (field) =>
            `${plainKey(field.key) ? field.key : JSON.stringify(field.key)}${field.optional ? "?" : ""}: ${proseType(field.type)}`,
        )
        .join(", ")} }`;
    default:
      return type.kind;
  }
}

/** The type an app should see, as TypeScript (readonly, as generated modules give values). */
export function typeScriptType(type: ResultType): string {
  switch (type.kind) {
    case "literal":
      return JSON.stringify(type.value);
    case "union":
      return type.members.map(typeScriptType).join(" | ");
    case "list":
      return `readonly (${typeScriptType(type.item)})[]`;
    case "record":
      return `{ ${type.fields
        .map(
          (field) =>
            `readonly ${JSON.stringify(field.key)}${field.optional ? "?" : ""}: ${typeScriptType(field.type)};`,
        )
        .join(" ")} }`;
    default:
      return type.kind;
  }
}

/** Whether `value` is of `type`: an optional key may be left out, never `null` unless its type says so; no other keys. */
export function fits(type: ResultType, value: Json): boolean {
  switch (type.kind) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "literal":
      return value === type.value;
    case "union":
      return type.members.some((member) => fits(member, value));
    case "list":
      return Array.isArray(value) && value.every((item: Json) => fits(type.item, item));
    case "record": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
      const record = value as { readonly [key: string]: Json };
      if (Object.keys(record).some((key) => !type.fields.some((field) => field.key === key))) return false;
      return type.fields.every((field) =>
        Object.hasOwn(record, field.key) ? fits(field.type, record[field.key]!) : field.optional,
      );
    }
  }
}

/** A value of `type`. */
export function validValue(random: () => number, type: ResultType): Json {
  switch (type.kind) {
    case "string":
      return pick(random, strings);
    case "number":
      return pick(random, numbers);
    case "boolean":
      return random() < 0.5;
    case "null":
      return null;
    case "literal":
      return type.value;
    case "union":
      return validValue(random, pick(random, type.members));
    case "list":
      return Array.from({ length: Math.floor(random() * 3) }, () => validValue(random, type.item));
    case "record":
      return Object.fromEntries(
        type.fields
          .filter((field) => !field.optional || random() < 0.6)
          .map((field) => [field.key, validValue(random, field.type)]),
      );
  }
}

/** `value` (of `type`) with one thing wrong somewhere in it, or undefined when no edit made it wrong. */
export function invalidValue(random: () => number, type: ResultType, value: Json): Json | undefined {
  for (let attempt = 0; attempt < 20; attempt++) {
    const edited = edit(random, type, value);
    if (!fits(type, edited)) return edited;
  }
  return undefined;
}

const others: readonly Json[] = ["text", 5, true, null, [], {}, ["text"], { extra: 1 }];

function edit(random: () => number, type: ResultType, value: Json): Json {
  const roll = random();
  if (type.kind === "list" && Array.isArray(value) && value.length > 0 && roll < 0.6) {
    const index = Math.floor(random() * value.length);
    return value.map((item: Json, at: number) => (at === index ? edit(random, type.item, item) : item));
  }
  if (type.kind === "record" && value !== null && typeof value === "object" && !Array.isArray(value) && roll < 0.8) {
    const record = value as { readonly [key: string]: Json };
    const field = pick(random, type.fields);
    const choice = random();
    if (choice < 0.25) return { ...record, [`${field.key}-extra`]: "x" };
    if (choice < 0.45 && !field.optional)
      return Object.fromEntries(Object.entries(record).filter(([key]) => key !== field.key));
    if (choice < 0.6 && field.optional) return { ...record, [field.key]: null };
    if (Object.hasOwn(record, field.key))
      return { ...record, [field.key]: edit(random, field.type, record[field.key]!) };
  }
  if (type.kind === "union" && roll < 0.5) return edit(random, pick(random, type.members), value);
  return pick(random, others);
}

export interface TypedCase {
  readonly seed: number;
  readonly type: ResultType;
  readonly valid: Json;
  readonly invalid: Json;
}

/** The case of `seed`: a type, a value of it and a value that is not. */
export function typedCase(seed: number): TypedCase {
  const random = seededRandom(seed);
  for (;;) {
    const type = randomType(random);
    const valid = validValue(random, type);
    const invalid = invalidValue(random, type, valid);
    if (invalid !== undefined) return { seed, type, valid, invalid };
  }
}
