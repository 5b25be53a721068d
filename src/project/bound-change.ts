/**
 * `prosec build --check`: whether a change raises a program's cost bound. The committed module's
 * bound is read back from its metadata (`cost: { ... }`, a data literal the compiler wrote) and
 * compared, kind by kind, with the new one.
 */
import type { CallKind, Count, ProgramCost } from "../../runtime/cost.js";
import { formatCount, Poly } from "../phases/2-analyze/index.js";

/** The bound in a generated module's metadata; undefined when it has none or it cannot be read. */
export function committedCost(module: string): ProgramCost | undefined {
  // The last one: the program's own text, quoted in the metadata before it, may hold the same words.
  const start = [...module.matchAll(/^ {2}cost: \{/gm)].at(-1);
  if (start === undefined) return undefined;
  try {
    return new LiteralReader(module, start.index + start[0].length - 1).value() as ProgramCost;
  } catch {
    return undefined;
  }
}

const KINDS: ReadonlyArray<readonly [CallKind, string]> = [
  ["session", "sessions"],
  ["judgment", "judgments"],
  ["choice", "choices"],
  ["extraction", "extractions"],
  ["retry", "retries"],
];

/** What rose from `before` to `after`, one phrase each (`sessions 4 → 6`); empty when nothing did. */
export function raisedParts(before: ProgramCost, after: ProgramCost): string[] {
  const parts: string[] = [];
  const compare = (label: string, old: Count, now: Count): void => {
    if (!Poly.fromCount(now).atMost(Poly.fromCount(old)))
      parts.push(`${label} ${formatCount(old)} → ${formatCount(now)}`);
  };
  for (const [kind, label] of KINDS) compare(label, before.calls[kind], after.calls[kind]);
  compare("critical path", before.criticalPath, after.criticalPath);
  return parts;
}

/** Reads the data literal the compiler writes (prettier-formatted): objects, arrays, strings, numbers. */
class LiteralReader {
  constructor(
    private readonly text: string,
    private at: number,
  ) {}

  value(): unknown {
    this.skip();
    const char = this.text[this.at];
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"') return this.string();
    const number = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 40));
    if (number !== null) {
      this.at += number[0].length;
      return Number(number[0]);
    }
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    throw new Error(`unexpected ${char} at ${this.at}`);
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.at++;
    for (;;) {
      this.skip();
      if (this.text[this.at] === "}") return (this.at++, result);
      const key = this.text[this.at] === '"' ? this.string() : this.word();
      this.skip();
      this.expect(":");
      result[key] = this.value();
      this.separator("}");
    }
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.at++;
    for (;;) {
      this.skip();
      if (this.text[this.at] === "]") return (this.at++, result);
      result.push(this.value());
      this.separator("]");
    }
  }

  private string(): string {
    const match = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.at));
    if (match === null) throw new Error(`unterminated string at ${this.at}`);
    this.at += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private word(): string {
    const match = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.at, this.at + 200));
    if (match === null) throw new Error(`expected a key at ${this.at}`);
    this.at += match[0].length;
    return match[0];
  }

  /** A comma (a trailing one too) or the closing bracket, which is left for the caller. */
  private separator(close: string): void {
    this.skip();
    if (this.text[this.at] === ",") this.at++;
    else if (this.text[this.at] !== close) throw new Error(`expected , or ${close} at ${this.at}`);
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) throw new Error(`expected ${char} at ${this.at}`);
    this.at++;
  }

  private skip(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }
}
