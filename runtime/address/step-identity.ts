/**
 * Who a step is and what it asks, handed to the durability with every step. The journal keeps its
 * anchor and request hash; `prosec test` matches recorded steps by the anchor and reports a step whose
 * request hash changed; the scripted model of `prosec/testing` answers by binding name, call site or
 * condition text. The structural key and the fingerprint (`step-keys.ts`) are what a resumed run of
 * a changed program matches recorded steps by.
 */
import { createHash } from "node:crypto";
import type { Site, StepAsk, StepIdentity, StepKind, StepModel } from "../types.js";

/** A step's identity; its request hash is computed on first use (only a kept journal asks for it). */
export class AnchoredStep implements StepIdentity {
  private hash: string | undefined;

  constructor(
    readonly kind: StepKind,
    readonly at: Site,
    /** The content-anchored counterpart of the step key (`anchors.ts`). */
    readonly anchor: string,
    /** The program the step belongs to: its name and source path (a called program's, inside `use`). */
    readonly program: { readonly name: string; readonly source: string },
    readonly ask: StepAsk,
    /** The structural key (`step-keys.ts`). */
    readonly key: string,
    private readonly fingerprintOf: () => string,
    private readonly modelOf: () => StepModel | undefined = () => undefined,
  ) {}

  private asked: { readonly model: StepModel | undefined } | undefined;

  /** The model it asks (`StepModel`); computed on first use (only a kept journal asks for it). */
  get model(): StepModel | undefined {
    this.asked ??= { model: this.modelOf() };
    return this.asked.model;
  }

  /** The agent a session runs as. */
  get agent(): string | undefined {
    const { agent } = (this.ask.details() ?? {}) as { readonly agent?: unknown };
    return typeof agent === "string" ? agent : undefined;
  }

  private print: string | undefined;

  /** What the step depends on (`step-keys.ts`); computed on first use (only a kept journal asks for it). */
  get fingerprint(): string {
    this.print ??= this.fingerprintOf();
    return this.print;
  }

  /** A hash of what the step asks: equal hashes mean the model would be asked the same thing. */
  get requestHash(): string {
    this.hash ??= createHash("sha256")
      .update(JSON.stringify([this.kind, this.ask.details()]))
      .digest("hex")
      .slice(0, 16);
    return this.hash;
  }
}
