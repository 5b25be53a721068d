/**
 * Deterministic reading of structure in text, tried before any model is asked: the whole text as
 * JSON, then the first fenced code block as JSON, then a markdown list (`-`, `*`, `+` or `1.` items).
 */
import type { Value } from "../types.js";
import { MAX_VALUE_DEPTH, nestingDepth } from "./depth.js";
import { isList, isRecord } from "./expressions.js";

/** The JSON value the text holds, whole or in a code fence; undefined when there is none. */
export function parseJson(text: string): Value | undefined {
  const trimmed = text.trim();
  const whole = tryJson(trimmed);
  if (whole !== undefined) return whole;
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\n([\s\S]*?)\n[ \t]*```/.exec(trimmed);
  return fence === null ? undefined : tryJson(fence[1]!.trim());
}

const ITEM = /^([ \t]*)(?:[-*+]|\d+[.)])[ \t]+(.*)$/;

/** The items of the first markdown list in the text (its outermost level); undefined when there is none. */
export function parseMarkdownList(text: string): string[] | undefined {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const items: string[] = [];
  let indent: number | undefined;
  for (const line of lines) {
    const match = ITEM.exec(line);
    if (match !== null && (indent === undefined || match[1]!.length === indent)) {
      indent = match[1]!.length;
      items.push(match[2]!.trim());
    } else if (indent !== undefined && line.trim() !== "" && /^[ \t]*/.exec(line)![0].length > indent) {
      items[items.length - 1] += `\n${line.trim()}`;
    } else if (indent !== undefined && line.trim() !== "") {
      break;
    }
  }
  return items.length === 0 ? undefined : items;
}

/** The list a text value holds: a JSON array (or a record with exactly one list field), or a markdown list. */
export function parseList(text: string): readonly Value[] | undefined {
  const json = parseJson(text);
  if (Array.isArray(json)) return json;
  if (json !== undefined && json !== null && typeof json === "object") {
    const lists = Object.values(json).filter((field) => Array.isArray(field));
    if (lists.length === 1) return lists[0] as readonly Value[];
  }
  return parseMarkdownList(text);
}

const YES = /^(yes|true|y|keep|pass|passed|approve|approved|accept|accepted|correct|ok)\b/i;
const NO = /^(no|false|n|drop|reject|rejected|fail|failed|incorrect|none|skip)\b/i;

/** A yes/no answer at the start of a text (markdown emphasis ignored); undefined when it is not one. */
export function parseYesNo(text: string): boolean | undefined {
  const start = text.trim().replace(/^[*_`"'#>\s]+/, "");
  if (YES.test(start)) return true;
  if (NO.test(start)) return false;
  return undefined;
}

function tryJson(text: string): Value | undefined {
  if (!/^[[{"]/.test(text)) return undefined;
  try {
    const value = JSON.parse(text) as Value;
    // Nested deeper than any value may be (depth.ts): not read as JSON, as if it were prose.
    return nestingDepth(value, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH ? undefined : value;
  } catch {
    return undefined;
  }
}

/** Deterministic part of `list`: the list, or undefined when the model must be asked. */
export function listWithoutModel(value: Value): readonly Value[] | undefined {
  if (isList(value)) return value;
  if (value === null) return [];
  if (typeof value === "string") return value.trim() === "" ? [] : parseList(value);
  if (isRecord(value))
    return Object.values(value).filter(isList).length === 1 ? Object.values(value).find(isList) : undefined;
  return [value];
}
