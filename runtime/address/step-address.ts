/**
 * Step addresses: every identity of a step (`StepAddress`), computed here and nowhere else.
 *
 * - `site`: the context path and `kind@line:column#occurrence` (`step-context.ts` counts them): what
 *   the store keys a step by and `--resume` of an unchanged program replays by.
 * - `anchor`: the same path in content anchors (`anchors.ts`): what `prosec test` matches by.
 * - `structure`: the path by structure (`step-keys.ts`, `outline.ts`): what a resumed run of an
 *   edited program matches by.
 * - `fingerprint` (`step-fingerprints.ts`) and `request` (below): whether what a step asks changed.
 *
 * A construct that opens contexts (a `parallel:`, a `map`, a block call) or calls a program is not a
 * step, but its site and anchor are the prefixes of the steps inside it, so they are counted here too.
 */
import { hash } from "node:crypto";
import { SourceAnchors } from "./anchors.js";
import { StepFingerprints } from "./step-fingerprints.js";
import { structuralSegment } from "./step-keys.js";
import type { TrailEntry } from "../values/trail.js";
import type { ProgramInfo, RunOptions, Site, StepAddress, StepAsk, StepKind, StepModel } from "../types.js";

/** The sequence of steps an address is counted in (`kernel/step-context.ts`'s `StepContext`). */
export interface StepSequence {
  /** The sequence's site path. */
  readonly path: string;
  readonly anchorPath: string;
  /** `kind@line:column#occurrence`, counting this occurrence. */
  nextSegment(kind: string, at: Site): string;
  /** `anchor#occurrence`, counting this occurrence. */
  nextAnchor(anchor: string): string;
  /** The structure of the step whose site segment is `segment` (just counted by `nextSegment`). */
  structuralKey(segment: string, kind: string, binding: string | undefined): string;
}

/** A step's address; what is costly (fingerprint, request, model) is computed on first use (only a kept journal asks). */
class Address implements StepAddress {
  constructor(
    readonly site: string,
    readonly anchor: string,
    readonly structure: string,
    readonly kind: StepKind,
    readonly at: Site,
    readonly program: { readonly name: string; readonly source: string },
    readonly ask: StepAsk,
    private readonly fingerprintOf: () => string,
    private readonly modelOf: () => StepModel | undefined,
  ) {}

  private asked: { readonly model: StepModel | undefined } | undefined;
  private print: string | undefined;
  private requestDigest: string | undefined;

  get model(): StepModel | undefined {
    this.asked ??= { model: this.modelOf() };
    return this.asked.model;
  }

  get agent(): string | undefined {
    const { agent } = (this.ask.details() ?? {}) as { readonly agent?: unknown };
    return typeof agent === "string" ? agent : undefined;
  }

  get fingerprint(): string {
    this.print ??= this.fingerprintOf();
    return this.print;
  }

  get request(): string {
    this.requestDigest ??= hash("sha256", JSON.stringify([this.kind, this.ask.details()]), "hex").slice(0, 16);
    return this.requestDigest;
  }
}

/** `address` as the store of the program that called this one knows it: its site under `prefix`. */
export function addressUnder(prefix: string, address: StepAddress): StepAddress {
  // Inherits the rest, getters computed on first use included.
  return Object.create(address, { site: { value: prefix + address.site, enumerable: true } }) as StepAddress;
}

/** The addresses of one program's steps in a run. */
export class StepAddresses {
  private readonly anchors: SourceAnchors;
  private readonly fingerprints: StepFingerprints;

  constructor(
    private readonly program: ProgramInfo,
    options: RunOptions,
    /** The model id a step's model name resolves to. */
    modelOf: (name: string | undefined) => string,
    /** The addresses of the program that called this one (`use`), which decide whether steps are fingerprinted. */
    caller?: StepAddresses,
  ) {
    this.anchors = new SourceAnchors(program.text);
    this.fingerprints = new StepFingerprints(program, options, modelOf, caller?.fingerprints);
  }

  /** Whether steps get fingerprints (a run folder keeps them). */
  get fingerprinted(): boolean {
    return this.fingerprints.enabled;
  }

  set fingerprinted(enabled: boolean) {
    this.fingerprints.enabled = enabled;
  }

  /**
   * Resuming a run recorded with `previous`, an earlier text of this program: statement sites are
   * taken from it where statements were kept, so unnamed steps keep their structure.
   */
  alignWith(previous: string): void {
    this.fingerprints.alignWith(previous);
  }

  /** A site segment (`kind@line:column#n`) with its `line:column` replaced by the statement's site in the outline. */
  structural(segment: string): string {
    return structuralSegment(this.fingerprints.outline(), segment);
  }

  /**
   * The address of the next step of `kind` at `at` in `sequence`; `trail`: what the step was shown
   * (taken now: the trail grows as the run goes on), for its fingerprint.
   */
  step(
    sequence: StepSequence,
    kind: StepKind,
    at: Site,
    ask: StepAsk,
    trail: () => readonly TrailEntry[],
  ): StepAddress {
    const segment = sequence.nextSegment(kind, at);
    const anchor = `${sequence.anchorPath}/${sequence.nextAnchor(this.anchors.of(kind, at, ask.binding))}`;
    const structure = sequence.structuralKey(segment, kind, ask.binding);
    const read = this.fingerprints.enabled && kind !== "input" && kind !== "extract" ? trail() : [];
    return new Address(
      `${sequence.path}/${segment}`,
      anchor,
      structure,
      kind,
      at,
      this.program,
      ask,
      () => this.fingerprints.of(kind, ask, read),
      () => this.fingerprints.model(kind, ask),
    );
  }

  /**
   * The next construct of `kind` at `at` that opens contexts (`parallel`, `map`, `do:name`): its site
   * segment and its anchor segment, which prefix the addresses of the steps inside it.
   */
  opening(sequence: StepSequence, kind: string, at: Site): { readonly segment: string; readonly anchor: string } {
    const anchor = sequence.nextAnchor(this.anchors.of(kind, at));
    return { segment: sequence.nextSegment(kind, at), anchor };
  }

  /** The next call of the program `name` at `at`: the prefixes of the called program's addresses. */
  call(
    sequence: StepSequence,
    name: string,
    at: Site,
  ): { readonly site: string; readonly anchor: string; readonly structure: string } {
    const kind = `use:${name}`;
    const segment = sequence.nextSegment(kind, at);
    const anchor = `${sequence.anchorPath}/${sequence.nextAnchor(this.anchors.of(kind, at))}`;
    return {
      site: `${sequence.path}/${segment}`,
      anchor,
      structure: sequence.structuralKey(segment, kind, undefined),
    };
  }

  /**
   * Counts an input's occurrence that is not a step (answered ahead, or awaited on DBOS) as one, so
   * later occurrences keep their addresses; its site.
   */
  input(sequence: StepSequence, at: Site, name: string): string {
    sequence.nextAnchor(this.anchors.of("input", at, name));
    return `${sequence.path}/${sequence.nextSegment("input", at)}`;
  }
}
