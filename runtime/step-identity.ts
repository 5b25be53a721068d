/**
 * Who a step is and what it asks, handed to the durability with every step. The journal keeps its
 * anchor and request hash; `prosec test` matches recorded steps by the anchor and reports a step whose
 * request hash changed; the scripted model of `prosec/testing` answers by binding name, call site or
 * condition text. None of it is part of the step key, which stays what `--resume` replays by.
 */
import { createHash } from "node:crypto";
import type { StepKind } from "./journal.js";
import { effectiveSettings, sessionTask } from "./session.js";
import type { SessionRequest, Site } from "./types.js";

/** What a step asks, as the program put it. */
export interface StepAsk {
  /** The name the step's result is bound to (a session's binding, an input's name). */
  readonly binding?: string;
  /** One readable text: a session's task, a judgment's condition, a choice's criteria, the text read. */
  readonly text: string;
  /** A choice's option labels. */
  readonly options?: readonly string[];
  /**
   * Everything that shapes the request (prompt, context values, agent, scope ...): what is hashed.
   * A function, so a run whose store does not keep the hash never builds it.
   */
  details(): unknown;
}

export class StepIdentity {
  private hash: string | undefined;

  constructor(
    readonly kind: StepKind,
    readonly at: Site,
    /** The content-anchored counterpart of the step key (`anchors.ts`). */
    readonly anchor: string,
    /** The program the step belongs to: its name and source path (a called program's, inside `use`). */
    readonly program: { readonly name: string; readonly source: string },
    readonly ask: StepAsk,
  ) {}

  /** A hash of what the step asks: equal hashes mean the model would be asked the same thing. */
  get requestHash(): string {
    this.hash ??= createHash("sha256").update(JSON.stringify([this.kind, this.ask.details()])).digest("hex").slice(0, 16);
    return this.hash;
  }
}

/** What a session asks: its task, context and agent, as the program gave them (not the request's layout). */
export function sessionAsk(request: SessionRequest, resume: boolean): StepAsk {
  const details = (): unknown => {
    const { model, skills, permissions, extra, context, persist } = effectiveSettings(request);
    return { task: sessionTask(request), agent: request.agent?.name, role: request.agent?.prompt, model, context, skills, permissions, extra, persist, resume };
  };
  return request.binding === undefined ? { text: sessionTask(request), details } : { binding: request.binding, text: sessionTask(request), details };
}
