/**
 * Structure in text values (`for x in parts`, `a.b`, `xs[0]`, `filter`): parsed deterministically
 * when the text holds JSON or a markdown list (see `structure.ts`); only otherwise is the model asked,
 * through a forced tool call. Either way an `extraction` event says which it was.
 */
import type { RunCore, StepOutcome } from "../run/core.js";
import { askForced } from "./judgment.js";
import { stableBlocks } from "../model/prompt.js";
import { parseJson, parseList, parseMarkdownList, parseYesNo } from "../values/structure.js";
import type { Value } from "../types.js";
import { isList, isRecord } from "../values/expressions.js";

const EXTRACT_SYSTEM =
  "You extract structure from text for an OpenProse program. Answer by calling the answer tool with exactly what the text contains; do not invent content.";

/** Deterministic part of `list`: the list, or undefined when the model must be asked. */
export function listWithoutModel(value: Value): readonly Value[] | undefined {
  if (isList(value)) return value;
  if (value === null) return [];
  if (typeof value === "string") return value.trim() === "" ? [] : parseList(value);
  if (isRecord(value))
    return Object.values(value).filter(isList).length === 1 ? Object.values(value).find(isList) : undefined;
  return [value];
}

export type FieldLookup = { readonly found: true; readonly value: Value } | { readonly found: false };

/** Deterministic part of `field`. A record or list without the key gives null; unreadable text needs the model. */
export function fieldWithoutModel(value: Value, key: string | number): FieldLookup {
  if (isList(value))
    return {
      found: true,
      value: typeof key === "number" ? (value.at(key) ?? null) : key === "length" ? value.length : null,
    };
  if (isRecord(value))
    return { found: true, value: Object.hasOwn(value, String(key)) ? (value[String(key)] as Value) : null };
  if (typeof value !== "string") return { found: true, value: null };
  const json = parseJson(value);
  if (json !== undefined && (isList(json) || isRecord(json))) return fieldWithoutModel(json, key);
  if (typeof key === "number") {
    const items = parseMarkdownList(value);
    if (items !== undefined) return { found: true, value: items.at(key) ?? null };
  }
  return { found: false };
}

/** Deterministic part of `truthy` for a session's answer; undefined when the text is not a clear yes or no. */
export function truthyWithoutModel(value: Value): boolean | undefined {
  if (value === null) return false;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  if (isList(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  if (value.trim() === "") return false;
  const json = parseJson(value);
  if (typeof json === "boolean") return json;
  return parseYesNo(value);
}

export async function extractList(core: RunCore, text: string, signal: AbortSignal): Promise<StepOutcome<Value[]>> {
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "array", items: {}, description: "The items, in order" } },
    required: ["answer"],
  };
  const { reply, usage } = await askForced(
    core,
    "List the items this text enumerates, in order.",
    stableBlocks([`Text:\n${text}`]),
    schema,
    signal,
    EXTRACT_SYSTEM,
  );
  const items = Array.isArray(reply.answer) ? (reply.answer as Value[]) : parseList(reply.text);
  if (items === undefined) throw new Error("The model could not read a list from the text.");
  return { value: [...items], usage };
}

export async function extractField(
  core: RunCore,
  text: string,
  key: string | number,
  signal: AbortSignal,
): Promise<StepOutcome<Value>> {
  const what = typeof key === "number" ? `item number ${key + 1} (1-based)` : `the field "${key}"`;
  const schema = {
    type: "object" as const,
    properties: { answer: { description: "The value, or null when the text has none" } },
    required: ["answer"],
  };
  const { reply, usage } = await askForced(
    core,
    `What is ${what} in this text?`,
    stableBlocks([`Text:\n${text}`]),
    schema,
    signal,
    EXTRACT_SYSTEM,
  );
  return { value: reply.answer === undefined ? reply.text : (reply.answer as Value), usage };
}

/**
 * The recorded value of several fields read together: the record under this key, which no answer
 * recorded for one field (by an earlier prosec, in a run resumed now) has.
 */
const FIELDS = "prosec:fields";

/** The fields a recorded group extraction holds; undefined for a value recorded for one field. */
export function fieldsOf(value: Value): { readonly [field: string]: Value } | undefined {
  const record = isRecord(value) && Object.keys(value).length === 1 ? value[FIELDS] : undefined;
  return record !== undefined && isRecord(record) ? record : undefined;
}

/** Several fields of one text, in one question: the value is a record of them (null where the text has none). */
export async function extractFields(
  core: RunCore,
  text: string,
  keys: readonly string[],
  signal: AbortSignal,
): Promise<StepOutcome<Value>> {
  const properties = Object.fromEntries(
    keys.map((key) => [key, { description: `The value of "${key}", or null when the text has none` }]),
  );
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "object", properties, required: [...keys] } },
    required: ["answer"],
  };
  const listed = keys.map((key) => `"${key}"`).join(", ");
  const { reply, usage } = await askForced(
    core,
    `What are the fields ${listed} in this text?`,
    stableBlocks([`Text:\n${text}`]),
    schema,
    signal,
    EXTRACT_SYSTEM,
  );
  const record = isRecord(reply.answer as Value) ? reply.answer : parseJson(reply.text);
  if (!isRecord(record as Value)) throw new Error(`The model did not give the fields ${listed} as a record.`);
  const answered = record as { readonly [key: string]: Value };
  return {
    value: {
      [FIELDS]: Object.fromEntries(keys.map((key) => [key, Object.hasOwn(answered, key) ? answered[key]! : null])),
    },
    usage,
  };
}

export async function extractTruth(core: RunCore, text: string, signal: AbortSignal): Promise<StepOutcome<boolean>> {
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "boolean" }, reason: { type: "string" } },
    required: ["answer", "reason"],
  };
  const { reply, usage } = await askForced(
    core,
    "Does this text answer yes (keep, true, positive) or no?",
    stableBlocks([`Text:\n${text}`]),
    schema,
    signal,
    EXTRACT_SYSTEM,
  );
  const answer = typeof reply.answer === "boolean" ? reply.answer : parseYesNo(reply.text);
  if (answer === undefined) throw new Error("The model could not read a yes or no from the text.");
  return { value: answer, reason: reply.reason, usage };
}
