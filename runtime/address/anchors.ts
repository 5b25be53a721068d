/**
 * Content anchors: an identity for each step that does not move when the program's lines do.
 *
 * A step's site (`step-address.ts`) names a call site by `line:column`, which is what `--resume` needs:
 * it only ever replays the very program that ran. A golden test or a scripted answer must survive
 * edits, so each step also gets an anchor built from the construct itself:
 *
 *   kind:binding@hash     e.g. `session:brief@3f2a9c1e`, `judge:@9d04be71`, `use:critique:@0c5e7a12`
 *
 * where `hash` covers the construct's own text, whitespace collapsed: a session's line from its
 * keyword on plus its more indented property lines (prompt template, context, ...), a `**condition**`
 * up to its closing marker, anything else the rest of its line. Comment lines and blank lines are
 * left out, so adding either above or inside a step changes nothing. The context path is anchored the
 * same way, and identical constructs in one context are told apart by occurrence (`#0`, `#1`).
 * Without the program's text (a hand-written `ProgramInfo`) the anchor is the call site.
 */
import { hash } from "node:crypto";
import type { Site } from "../types.js";

/** Lines of a construct read at most (a runaway `***` condition stops here). */
const MAX_LINES = 200;

export class SourceAnchors {
  private readonly lines: readonly string[] | undefined;
  private readonly cache = new Map<string, string>();

  constructor(text: string | undefined) {
    this.lines = text?.split(/\r?\n/);
  }

  /** The anchor of the `kind` construct at `at` (a session's `binding` is part of it). */
  of(kind: string, at: Site, binding = ""): string {
    const cacheKey = `${kind}@${at.line}:${at.column}:${binding}`;
    let anchor = this.cache.get(cacheKey);
    if (anchor === undefined) {
      const text = this.lines === undefined ? undefined : constructText(this.lines, kind, at);
      anchor =
        text === undefined
          ? `${kind}@${at.line}:${at.column}`
          : `${kind}:${binding}@${hash("sha256", text, "hex").slice(0, 8)}`;
      this.cache.set(cacheKey, anchor);
    }
    return anchor;
  }
}

/** The kind and binding an anchor names (`session:brief`), or undefined for a call-site anchor. */
export function anchorSubject(anchor: string): string | undefined {
  const last = anchor.slice(anchor.lastIndexOf("/") + 1);
  const match = /^(.*:[^:@]*)@[0-9a-f]{8}(?:#\d+)?$/.exec(last);
  return match?.[1];
}

function constructText(lines: readonly string[], kind: string, at: Site): string | undefined {
  const first = lines[at.line - 1];
  if (first === undefined || at.column < 1 || at.column > first.length + 1) return undefined;
  const head = first.slice(at.column - 1);
  const marker = /^\*{2,3}/.exec(head)?.[0];
  if (marker !== undefined) return normalize(discretion(lines, at.line, head, marker));
  if (kind !== "session") return normalize(head);
  const indent = indentOf(first);
  const taken = [head];
  for (let index = at.line; index < lines.length && taken.length < MAX_LINES; index++) {
    const line = lines[index]!;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (indentOf(line) <= indent) break;
    taken.push(trimmed);
  }
  return normalize(taken.join("\n"));
}

/** `**text**` or `***text***` (which may span lines), markers included. */
function discretion(lines: readonly string[], line: number, head: string, marker: string): string {
  let text = head;
  for (let index = line; ; index++) {
    const close = text.indexOf(marker, marker.length);
    if (close >= 0) return text.slice(0, close + marker.length);
    if (index >= lines.length || index - line >= MAX_LINES) return text;
    text += `\n${lines[index]!}`;
  }
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
