/**
 * Structures and fingerprints: what lets a run resume after its program was edited.
 *
 * A step's **structure** names its construct without `line:column`: the context path (a `parallel:`
 * branch, a `for` item, a block or program call), then the construct's kind and binding name
 * (`session:draft#1`: the second step bound to `draft` here), or for a construct bound to nothing its
 * statement's site in the program's outline (`session@s4.0~3#0`: its site in the outline, `outline.ts`, and its column), never `line:column`. An
 * edit elsewhere leaves it as it was.
 *
 * A step's **fingerprint** is what it depends on, in three parts: what it asks (a session's prompt
 * after interpolation, a judgment's condition), how it asks it (agent, model, system prompt,
 * permissions, tools offered, context), and what it read (the digests of the values in its context
 * and its trail: by content, never by a guess at which step produced an equal text). A resumed run reuses a recorded step only when
 * its fingerprint is unchanged, so a step downstream of a changed value runs again.
 */
import { hash } from "node:crypto";
import type { ProgramOutline } from "./outline.js";
import type { StepKind, StepModel } from "../types.js";
import { text } from "../values/expressions.js";
import type { Value } from "../types.js";

/** `kind@line:column` segments of a site, each with its statement's site instead. */
export function structuralSegment(outline: ProgramOutline | undefined, segment: string): string {
  if (outline === undefined) return segment;
  // The column tells apart constructs of one statement (`session "a" -> session "b"`).
  return segment.replace(/@(\d+):(\d+)/g, (whole, line: string, column: string) => {
    const site = outline.site(Number(line));
    return site === undefined ? whole : `@${site}~${column}`;
  });
}

function digestOf(value: unknown): string {
  return hash("sha256", typeof value === "string" ? value : (JSON.stringify(value) ?? "null"), "hex").slice(0, 8);
}

/** A value's identity where no step's fingerprint stands for it (an input, a literal). */
export function valueDigest(value: Value): string {
  return digestOf(text(value));
}

export interface FingerprintParts {
  readonly kind: StepKind;
  /** What the step asks: a session's task, a judgment's condition. */
  readonly asks: string;
  /** Everything else that shapes the request. */
  readonly how: unknown;
  /** Fingerprints (or digests) of what it read: context values and trail entries, in order. */
  readonly reads: readonly string[];
}

/** `asks-how-reads`, each part a short hash, so a changed fingerprint says what changed. */
export function fingerprint(parts: FingerprintParts): string {
  return `${digestOf([parts.kind, parts.asks])}-${digestOf(parts.how)}-${digestOf(parts.reads)}`;
}

/**
 * Why a step whose structure was recorded runs again: which part of its fingerprint changed, and
 * when it is how it asks, whether its model resolves to another id (records before `model` was kept
 * cannot tell, and say "model or settings").
 */
export function changeReason(recorded: string, now: string, recordedModel?: StepModel, modelNow?: StepModel): string {
  const [asks, how] = recorded.split("-");
  const [asksNow, howNow] = now.split("-");
  if (asks !== asksNow) return "prompt changed";
  if (how !== howNow) {
    if (recordedModel === undefined || modelNow === undefined) return "model or settings changed";
    return recordedModel.id === modelNow.id ? "settings changed" : "model changed";
  }
  return "an input changed";
}
