/**
 * The cost of a piece of program: model calls by kind, the critical path (calls that must run one
 * after another), and estimated tokens per model. Composed as the program is: in sequence, side by
 * side (`parallel`), as alternatives (`if`, `choice`: the worst one), repeated.
 */
import type { CallKind } from "../../../../runtime/cost.js";
import { Poly } from "./poly.js";

export type Calls = Readonly<Record<CallKind, Poly>>;

export interface Tokens {
  readonly input: Poly;
  readonly output: Poly;
}

export class CostVector {
  private constructor(
    readonly calls: Calls,
    readonly critical: Poly,
    readonly tokens: ReadonlyMap<string, Tokens>,
  ) {}

  static of(calls: Calls, critical: Poly, tokens: ReadonlyMap<string, Tokens>): CostVector {
    return new CostVector(calls, critical, tokens);
  }

  static readonly none = new CostVector(
    { session: Poly.zero, judgment: Poly.zero, choice: Poly.zero, extraction: Poly.zero, retry: Poly.zero },
    Poly.zero,
    new Map(),
  );

  /** One model call of `kind` to `model` with these token estimates. */
  static call(kind: CallKind, model: string, input: number, output: number): CostVector {
    return new CostVector(
      { ...CostVector.none.calls, [kind]: Poly.constant(1) },
      Poly.constant(1),
      new Map([[model, { input: Poly.constant(input), output: Poly.constant(output) }]]),
    );
  }

  /** A loop without a bound (or a recursion): unbounded in everything it may call. */
  static unboundedLike(body: CostVector): CostVector {
    return body.times(Poly.infinite, Poly.infinite);
  }

  get isZero(): boolean {
    return this.critical.isZero && Object.values(this.calls).every((count) => count.isZero);
  }

  /** This, then `next`. */
  then(next: CostVector): CostVector {
    return this.combine(
      next,
      (a, b) => a.plus(b),
      (a, b) => a.plus(b),
    );
  }

  /** This and `other` at the same time. */
  alongside(other: CostVector): CostVector {
    return this.combine(
      other,
      (a, b) => a.plus(b),
      (a, b) => Poly.max([a, b]),
    );
  }

  /** This or `other`, whichever costs more. */
  or(other: CostVector): CostVector {
    return this.combine(
      other,
      (a, b) => Poly.max([a, b]),
      (a, b) => Poly.max([a, b]),
    );
  }

  /** `times` repetitions, of which `inSequence` follow one another (the rest run side by side). */
  times(times: Poly, inSequence: Poly = times): CostVector {
    const calls = mapCalls(this.calls, (count) => count.times(times));
    const tokens = new Map(
      [...this.tokens].map(
        ([model, { input, output }]) => [model, { input: input.times(times), output: output.times(times) }] as const,
      ),
    );
    return new CostVector(calls, this.critical.times(inSequence), tokens);
  }

  private combine(
    other: CostVector,
    counts: (a: Poly, b: Poly) => Poly,
    critical: (a: Poly, b: Poly) => Poly,
  ): CostVector {
    const calls = mapCalls(this.calls, (count, kind) => counts(count, other.calls[kind]));
    const tokens = new Map(this.tokens);
    for (const [model, theirs] of other.tokens) {
      const mine = tokens.get(model) ?? { input: Poly.zero, output: Poly.zero };
      tokens.set(model, { input: counts(mine.input, theirs.input), output: counts(mine.output, theirs.output) });
    }
    return new CostVector(calls, critical(this.critical, other.critical), tokens);
  }
}

function mapCalls(calls: Calls, map: (count: Poly, kind: keyof Calls) => Poly): Calls {
  return {
    session: map(calls.session, "session"),
    judgment: map(calls.judgment, "judgment"),
    choice: map(calls.choice, "choice"),
    extraction: map(calls.extraction, "extraction"),
    retry: map(calls.retry, "retry"),
  };
}
