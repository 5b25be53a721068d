/**
 * The algebra of cost bounds: a polynomial with non-negative coefficients over non-negative symbols
 * (list sizes, counts), in which a maximum that does not simplify stays an opaque factor; or
 * unbounded. Every operation keeps a canonical form (like terms merged, factors sorted), so equal
 * bounds print alike and a dominated branch of a maximum drops out: `max(2 + |x|, 1 + |x|)` is
 * `2 + |x|`.
 */
import type { Count } from "../../../../runtime/cost.js";

type Factor =
  | { readonly kind: "symbol"; readonly name: string; readonly key: string }
  | { readonly kind: "max"; readonly of: readonly Poly[]; readonly key: string };

interface Term {
  readonly coefficient: number;
  /** Sorted by key; repeated for powers. */
  readonly factors: readonly Factor[];
}

export class Poly {
  private constructor(
    /** By the key of their factors (`""` for the constant). */
    private readonly terms: ReadonlyMap<string, Term>,
    readonly unbounded: boolean,
  ) {}

  static readonly zero = new Poly(new Map(), false);
  static readonly infinite = new Poly(new Map(), true);

  static constant(value: number): Poly {
    return value === 0 ? Poly.zero : new Poly(new Map([["", { coefficient: value, factors: [] }]]), false);
  }

  static symbol(name: string): Poly {
    const factor: Factor = { kind: "symbol", name, key: name };
    return new Poly(new Map([[name, { coefficient: 1, factors: [factor] }]]), false);
  }

  get isZero(): boolean {
    return !this.unbounded && this.terms.size === 0;
  }

  /** The value when it is a plain number. */
  get constantValue(): number | undefined {
    if (this.unbounded) return undefined;
    if (this.terms.size === 0) return 0;
    const only = this.terms.get("");
    return this.terms.size === 1 && only !== undefined ? only.coefficient : undefined;
  }

  get key(): string {
    if (this.unbounded) return "∞";
    return [...this.terms]
      .map(([key, term]) => `${term.coefficient}*${key}`)
      .sort()
      .join("+");
  }

  plus(other: Poly): Poly {
    if (this.unbounded || other.unbounded) return Poly.infinite;
    const terms = new Map(this.terms);
    for (const [key, term] of other.terms) {
      const existing = terms.get(key);
      terms.set(
        key,
        existing === undefined ? term : { coefficient: existing.coefficient + term.coefficient, factors: term.factors },
      );
    }
    return new Poly(terms, false);
  }

  times(other: Poly): Poly {
    if (this.isZero || other.isZero) return Poly.zero;
    if (this.unbounded || other.unbounded) return Poly.infinite;
    let result = Poly.zero;
    for (const a of this.terms.values()) {
      for (const b of other.terms.values()) {
        const factors = [...a.factors, ...b.factors].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
        const key = factors.map((factor) => factor.key).join("·");
        result = result.plus(
          new Poly(new Map([[key, { coefficient: a.coefficient * b.coefficient, factors }]]), false),
        );
      }
    }
    return result;
  }

  scale(factor: number): Poly {
    return this.times(Poly.constant(factor));
  }

  /** Whether this is at most `other` for every value of the symbols (shown term by term; false when unsure). */
  atMost(other: Poly): boolean {
    if (other.unbounded) return true;
    if (this.unbounded) return false;
    for (const [key, term] of this.terms) if ((other.terms.get(key)?.coefficient ?? 0) < term.coefficient) return false;
    return true;
  }

  static max(polys: readonly Poly[]): Poly {
    const flat = polys.flatMap((poly) => poly.maxOperands() ?? [poly]).filter((poly) => !poly.isZero);
    if (flat.some((poly) => poly.unbounded)) return Poly.infinite;
    const kept = flat.filter(
      (poly, index) =>
        !flat.some(
          (other, otherIndex) =>
            otherIndex !== index && poly.atMost(other) && (!other.atMost(poly) || otherIndex < index),
        ),
    );
    if (kept.length === 0) return Poly.zero;
    if (kept.length === 1) return kept[0]!;
    // What every operand has in common stays outside: max(a + c, b + c) = c + max(a, b).
    const common = new Map<string, Term>();
    for (const [key, term] of kept[0]!.terms) {
      const least = Math.min(...kept.map((poly) => poly.terms.get(key)?.coefficient ?? 0));
      if (least > 0) common.set(key, { coefficient: least, factors: term.factors });
    }
    const shared = new Poly(common, false);
    const rests = kept.map((poly) => poly.minus(shared));
    if (rests.some((rest) => rest.isZero)) return Poly.max(rests).plus(shared);
    // Constants first, then by key: `max(3, n)`.
    const operands = [...new Map(rests.map((rest) => [rest.key, rest])).values()].sort(
      (a, b) =>
        Number(a.constantValue === undefined) - Number(b.constantValue === undefined) || (a.key < b.key ? -1 : 1),
    );
    if (operands.length === 1) return operands[0]!.plus(shared);
    const factor: Factor = {
      kind: "max",
      of: operands,
      key: `max(${operands.map((operand) => operand.key).join(",")})`,
    };
    return new Poly(new Map([[factor.key, { coefficient: 1, factors: [factor] }]]), false).plus(shared);
  }

  /** The serializable form (runtime/bound.ts); coefficients rounded up to whole numbers unless `exact`. */
  toCount(exact = false): Count {
    if (this.unbounded) return "unbounded";
    const terms = [...this.terms.values()].sort(termOrder).map((term): Count => {
      const factors = term.factors.map((factor): Count =>
        factor.kind === "symbol"
          ? { symbol: factor.name }
          : { max: factor.of.map((operand) => operand.toCount(exact)) },
      );
      const coefficient = exact ? term.coefficient : Math.ceil(term.coefficient);
      if (factors.length === 0) return coefficient;
      return coefficient === 1 && factors.length === 1
        ? factors[0]!
        : { product: coefficient === 1 ? factors : [coefficient, ...factors] };
    });
    return terms.length === 0 ? 0 : terms.length === 1 ? terms[0]! : { sum: terms };
  }

  static fromCount(count: Count): Poly {
    if (typeof count === "number") return Poly.constant(count);
    if (count === "unbounded") return Poly.infinite;
    if ("symbol" in count) return Poly.symbol(count.symbol);
    if ("sum" in count) return count.sum.reduce<Poly>((sum, part) => sum.plus(Poly.fromCount(part)), Poly.zero);
    if ("product" in count)
      return count.product.reduce<Poly>((product, part) => product.times(Poly.fromCount(part)), Poly.constant(1));
    return Poly.max(count.max.map((part) => Poly.fromCount(part)));
  }

  /** Replaces symbols (a called program's inputs by the caller's arguments, its other symbols renamed). */
  substitute(replace: (symbol: string) => Poly): Poly {
    if (this.unbounded) return this;
    let result = Poly.zero;
    for (const term of this.terms.values()) {
      let product = Poly.constant(term.coefficient);
      for (const factor of term.factors)
        product = product.times(
          factor.kind === "symbol"
            ? replace(factor.name)
            : Poly.max(factor.of.map((operand) => operand.substitute(replace))),
        );
      result = result.plus(product);
    }
    return result;
  }

  /** The operands when this is exactly one maximum. */
  private maxOperands(): readonly Poly[] | undefined {
    if (this.terms.size !== 1) return undefined;
    const [term] = this.terms.values();
    return term!.coefficient === 1 && term!.factors.length === 1 && term!.factors[0]!.kind === "max"
      ? term!.factors[0]!.of
      : undefined;
  }

  /** `this - other` for an `other` this is known to contain term by term. */
  private minus(other: Poly): Poly {
    const terms = new Map(this.terms);
    for (const [key, term] of other.terms) {
      const left = (terms.get(key)?.coefficient ?? 0) - term.coefficient;
      if (left > 0) terms.set(key, { coefficient: left, factors: term.factors });
      else terms.delete(key);
    }
    return new Poly(terms, false);
  }
}

/** Constants first, then by degree, then by name, maxima last: `3 + 2·|a| + |a|·|b| + max(2, n)`. */
function termOrder(a: Term, b: Term): number {
  const maxima = (term: Term): number => term.factors.filter((factor) => factor.kind === "max").length;
  if (maxima(a) !== maxima(b)) return maxima(a) - maxima(b);
  if (a.factors.length !== b.factors.length) return a.factors.length - b.factors.length;
  const keyA = a.factors.map((factor) => factor.key).join("·");
  const keyB = b.factors.map((factor) => factor.key).join("·");
  return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
}
