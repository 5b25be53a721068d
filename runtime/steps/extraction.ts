/**
 * Structure in text values (`for x in parts`, `a.b`, `xs[0]`, `filter`): parsed deterministically
 * when the text holds JSON or a markdown list (see `structure.ts`); only otherwise is the model asked,
 * through a forced tool call. Either way an `extraction` event says which it was.
 */
import type { RunCore, StepOutcome } from "../kernel/core.js";
import { askForced, YES_NO_SCHEMA } from "./forced-question.js";
import { YES_NO_SHAPE } from "./judgment.js";
import { stableBlocks } from "../model/prompt.js";
import { parseJson, parseList, parseMarkdownList, parseYesNo } from "../values/structure.js";
import type { Site, Value } from "../types.js";
import { isList, isRecord } from "../values/expressions.js";

const EXTRACT_SYSTEM =
  "You extract structure from text for an OpenProse program. Answer by calling the answer tool with exactly what the text contains; do not invent content.";

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

export async function extractList(
  core: RunCore,
  at: Site,
  text: string,
  signal: AbortSignal,
): Promise<StepOutcome<Value[]>> {
  const schema = {
    type: "object" as const,
    properties: { answer: { type: "array", items: {}, description: "The items, in order" } },
    required: ["answer"],
  };
  return askForced(
    core,
    {
      at,
      label: "Reading a list",
      system: EXTRACT_SYSTEM,
      material: stableBlocks([`Text:\n${text}`]),
      question: "List the items this text enumerates, in order.",
      schema,
      shape: '{"answer": [the items, in order]}',
      expected: "a list",
      failure: "The model could not read a list from the text",
      read: (reply) => {
        const items = Array.isArray(reply.answer)
          ? (reply.answer as Value[])
          : reply.called
            ? undefined
            : parseList(reply.text);
        return items === undefined ? undefined : [...items];
      },
    },
    signal,
  );
}

export async function extractField(
  core: RunCore,
  at: Site,
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
  return askForced(
    core,
    {
      at,
      label: typeof key === "number" ? `Reading item ${key + 1}` : `Reading the field ${key}`,
      system: EXTRACT_SYSTEM,
      material: stableBlocks([`Text:\n${text}`]),
      question: `What is ${what} in this text?`,
      schema,
      shape: '{"answer": <the value, or null when the text has none>}',
      expected: "a value",
      failure: `The model could not read ${what} from the text`,
      // A server that ignores `tool_choice` may answer in text: a JSON value is read, prose is not.
      read: (reply) =>
        reply.called ? (reply.answer === undefined ? undefined : (reply.answer as Value)) : parseJson(reply.text),
    },
    signal,
  );
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
  at: Site,
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
  return askForced(
    core,
    {
      at,
      label: `Reading the fields ${keys.join(", ")}`,
      system: EXTRACT_SYSTEM,
      material: stableBlocks([`Text:\n${text}`]),
      question: `What are the fields ${listed} in this text?`,
      schema,
      shape: `{"answer": {${keys.map((key) => `${JSON.stringify(key)}: <its value, or null>`).join(", ")}}}`,
      expected: "a record of the fields",
      failure: `The model did not give the fields ${listed} as a record`,
      read: (reply) => {
        const record = reply.called ? (reply.answer as Value | undefined) : parseJson(reply.text);
        if (record === undefined || !isRecord(record)) return undefined;
        return {
          [FIELDS]: Object.fromEntries(keys.map((key) => [key, Object.hasOwn(record, key) ? record[key]! : null])),
        };
      },
    },
    signal,
  );
}

export async function extractTruth(
  core: RunCore,
  at: Site,
  text: string,
  signal: AbortSignal,
): Promise<StepOutcome<boolean>> {
  return askForced(
    core,
    {
      at,
      label: "Reading yes or no",
      system: EXTRACT_SYSTEM,
      material: stableBlocks([`Text:\n${text}`]),
      question: "Does this text answer yes (keep, true, positive) or no?",
      schema: YES_NO_SCHEMA,
      shape: YES_NO_SHAPE,
      expected: "true or false",
      failure: "The model could not read a yes or no from the text",
      read: (reply) =>
        typeof reply.answer === "boolean"
          ? reply.answer
          : parseYesNo(typeof reply.answer === "string" ? reply.answer : reply.called ? "" : reply.text),
    },
    signal,
  );
}
