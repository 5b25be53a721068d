import nearley from "nearley";
import { textsTested } from "./grammar-support.js";
import type { Token } from "./token.js";

/**
 * The Earley recognizer that parses statements: nearley's algorithm (the same states, postprocessor
 * calls and parse count, so the grammar's guarantees carry over), run over a token array with one
 * token of lookahead and lean bookkeeping.
 *
 * - Prediction with lookahead: a nonterminal is expanded only into the rules that can begin with the
 *   next token or derive nothing. nearley adds every rule (about fifty states at the start of a
 *   statement), and most of them die on the next token.
 * - A state whose next symbol cannot begin with the next token (a terminal it does not match, or a
 *   nonterminal that can neither begin with it nor derive nothing) is dropped when it is made. Both
 *   prunings remove only states that could never advance, so the parses are nearley's, and a
 *   statement fails at the token where nearley fails.
 * - A state keeps its child's value, not the child: finished subtrees are garbage at once. Columns
 *   are two reused arrays, and the nonterminals a column has predicted are marked in arrays indexed
 *   by nonterminal, not in an object per column.
 *
 * It only answers "the parses, or none": what was expected where a statement fails is read from
 * nearley's own chart (parser.ts parses a failing statement again with nearley).
 */

type Terminal = { readonly literal?: string; readonly type?: string; readonly test?: (token: Token) => boolean };
type Postprocess = (data: unknown[], reference: number, fail: unknown) => unknown;

interface CompiledRule {
  readonly name: number;
  /** Nonterminals as numbers, terminals as indices into `terminals` offset by -1 - index. */
  readonly symbols: readonly number[];
  readonly postprocess: Postprocess | undefined;
  readonly nullable: boolean;
  /** Terminal indices this rule can begin with. */
  readonly first: readonly number[];
}

class State {
  constructor(
    readonly rule: CompiledRule,
    readonly dot: number,
    readonly reference: number,
    readonly wantedBy: State[],
    /** The state before the symbol just read. */
    readonly left: State | null,
    /**
     * While incomplete: the value of the symbol just read (a token or a finished subtree). Once
     * complete: the children's values, then what the postprocessor made of them.
     */
    public data: unknown,
  ) {}
}

/** What the grammar does with one kind of lookahead token. */
interface Lookahead {
  /** For each terminal: does the token match it. */
  readonly matches: Uint8Array;
  /** For each nonterminal: the rules to predict (those that can begin with the token or derive nothing). */
  readonly predictions: readonly (readonly CompiledRule[])[];
  /** For each nonterminal: can it begin with the token or derive nothing (does it have predictions). */
  readonly viable: Uint8Array;
}

const fail = (nearley.Parser as unknown as { fail: unknown }).fail;

export class EarleyParser {
  private readonly rules: CompiledRule[];
  private readonly terminals: Terminal[] = [];
  private readonly literals = new Set<string>();
  private readonly start: number;
  private readonly nonterminals: number;
  /** Lookahead by token type, then by text for texts the terminals look at; the second map is for `adjacent` tokens. */
  private readonly lookaheads = [
    new Map<string, { plain?: Lookahead; byText: Map<string, Lookahead> }>(),
    new Map<string, { plain?: Lookahead; byText: Map<string, Lookahead> }>(),
  ];
  private readonly end: Lookahead;

  // Per-column marks, indexed by nonterminal: valid where the stamp equals the column's stamp.
  private stamp = 0;
  private readonly wantsStamp: Int32Array;
  private readonly wants: State[][];
  private readonly nullsStamp: Int32Array;
  private readonly nulls: State[][];
  private readonly columns: [State[], State[]] = [[], []];
  private readonly scans: [State[], State[]] = [[], []];
  private scannedLength = 0;

  constructor(grammar: nearley.Grammar) {
    const ids = new Map<string, number>();
    for (const rule of grammar.rules) if (!ids.has(rule.name)) ids.set(rule.name, ids.size);
    this.nonterminals = ids.size;
    this.start = ids.get(grammar.start)!;
    const terminalIds = new Map<Terminal, number>();
    const raw = grammar.rules.map((rule) => ({
      name: ids.get(rule.name)!,
      postprocess: rule.postprocess as Postprocess | undefined,
      symbols: (rule.symbols as (string | Terminal)[]).map((symbol) => {
        if (typeof symbol === "string") {
          const id = ids.get(symbol);
          if (id === undefined) throw new Error(`grammar: no rule for ${symbol}`);
          return id;
        }
        if (symbol.literal !== undefined) this.literals.add(symbol.literal);
        let id = terminalIds.get(symbol);
        if (id === undefined) {
          id = this.terminals.length;
          terminalIds.set(symbol, id);
          this.terminals.push(symbol);
        }
        return -1 - id;
      }),
    }));

    // Nullable nonterminals and FIRST sets, to a fixed point.
    const nullable = new Uint8Array(this.nonterminals);
    const first = Array.from({ length: this.nonterminals }, () => new Set<number>());
    for (let changed = true; changed;) {
      changed = false;
      for (const rule of raw) {
        const set = first[rule.name]!;
        const before = set.size;
        if (sequenceFirst(rule.symbols, nullable, first, set) && nullable[rule.name] === 0) {
          nullable[rule.name] = 1;
          changed = true;
        }
        if (set.size !== before) changed = true;
      }
    }
    this.rules = raw.map((rule) => {
      const terminals = new Set<number>();
      const isNullable = sequenceFirst(rule.symbols, nullable, first, terminals);
      return { ...rule, nullable: isNullable, first: [...terminals] };
    });

    this.wantsStamp = new Int32Array(this.nonterminals);
    this.wants = new Array<State[]>(this.nonterminals);
    this.nullsStamp = new Int32Array(this.nonterminals);
    this.nulls = new Array<State[]>(this.nonterminals);
    this.end = this.lookahead(undefined);
  }

  /** The values of every parse of `tokens` (nearley's `results`), or undefined when there is none. */
  parse(tokens: readonly Token[]): unknown[] | undefined {
    // Two column buffers and two scan buffers, reused from statement to statement; a column is
    // needed only until the next one is built (states reach back through `left` and `wantedBy`).
    let column = this.columns[0];
    let next = this.columns[1];
    let scanned = this.scans[0];
    let nextScanned = this.scans[1];
    let ahead = this.lookaheadFor(tokens[0]);
    // Column 0: the start symbol, wanted by nothing.
    const stamp0 = this.nextStamp();
    this.wantsStamp[this.start] = stamp0;
    const top: State[] = [];
    this.wants[this.start] = top;
    let length = 0;
    for (const rule of ahead.predictions[this.start]!) column[length++] = this.initial(rule, 0, top);
    length = this.process(column, length, 0, stamp0, ahead, scanned);
    let scannedLength = this.scannedLength;

    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index]!;
      ahead = this.lookaheadFor(tokens[index + 1]);
      let nextLength = 0;
      // nearley scans its scannable states last to first.
      for (let w = scannedLength; w--;) {
        const state = this.advance(scanned[w]!, token, ahead);
        if (state !== undefined) next[nextLength++] = state;
      }
      if (nextLength === 0) return this.done(undefined);
      length = this.process(next, nextLength, index + 1, this.nextStamp(), ahead, nextScanned);
      scannedLength = this.scannedLength;
      const processed = next;
      next = column;
      column = processed;
      const toScan = nextScanned;
      nextScanned = scanned;
      scanned = toScan;
    }

    const results: unknown[] = [];
    for (let w = 0; w < length; w++) {
      const state = column[w]!;
      if (
        state.rule.name === this.start &&
        state.reference === 0 &&
        state.dot === state.rule.symbols.length &&
        state.data !== fail
      )
        results.push(state.data);
    }
    return this.done(results.length > 0 ? results : undefined);
  }

  /** Lets go of the last statement's states, so that its values are garbage once the caller is done. */
  private done(results: unknown[] | undefined): unknown[] | undefined {
    for (const buffer of [...this.columns, ...this.scans]) buffer.fill(undefined as unknown as State);
    return results;
  }

  private nextStamp(): number {
    if (this.stamp === 0x3fffffff) {
      this.stamp = 0;
      this.wantsStamp.fill(0);
      this.nullsStamp.fill(0);
    }
    return ++this.stamp;
  }

  /**
   * nearley's `Column.process` over the first `length` states of `states`: completes, predicts, and
   * puts the states that read the next token in `scanned` (their count in `scannedLength`).
   * Returns the column's final length.
   */
  private process(
    states: State[],
    length: number,
    index: number,
    stamp: number,
    ahead: Lookahead,
    scanned: State[],
  ): number {
    let scannedLength = 0;
    for (let w = 0; w < length; w++) {
      const state = states[w]!;
      const symbols = state.rule.symbols;
      if (state.dot === symbols.length) {
        const postprocess = state.rule.postprocess;
        if (postprocess !== undefined) state.data = postprocess(state.data as unknown[], state.reference, fail);
        if (state.data === fail) continue;
        const wantedBy = state.wantedBy;
        for (let i = wantedBy.length; i--;) {
          const advanced = this.advance(wantedBy[i]!, state.data, ahead);
          if (advanced !== undefined) states[length++] = advanced;
        }
        if (state.reference === index) {
          // A rule that derived nothing here: states that want it later in this column complete with it.
          const name = state.rule.name;
          if (this.nullsStamp[name] === stamp) this.nulls[name]!.push(state);
          else {
            this.nullsStamp[name] = stamp;
            this.nulls[name] = [state];
          }
        }
        continue;
      }
      const symbol = symbols[state.dot]!;
      if (symbol < 0) {
        scanned[scannedLength++] = state;
        continue;
      }
      if (this.wantsStamp[symbol] === stamp) {
        this.wants[symbol]!.push(state);
        if (this.nullsStamp[symbol] === stamp) {
          for (const right of this.nulls[symbol]!) {
            const advanced = this.advance(state, right.data, ahead);
            if (advanced !== undefined) states[length++] = advanced;
          }
        }
      } else {
        this.wantsStamp[symbol] = stamp;
        const wantedBy = [state];
        this.wants[symbol] = wantedBy;
        for (const rule of ahead.predictions[symbol]!) states[length++] = this.initial(rule, index, wantedBy);
      }
    }
    this.scannedLength = scannedLength;
    return length;
  }

  private initial(rule: CompiledRule, index: number, wantedBy: State[]): State {
    return new State(rule, 0, index, wantedBy, null, rule.symbols.length === 0 ? [] : undefined);
  }

  /**
   * `left` with its next symbol read as `value`; undefined when what it waits for next cannot
   * begin with the next token (nor derive nothing).
   */
  private advance(left: State, value: unknown, ahead: Lookahead): State | undefined {
    const rule = left.rule;
    const dot = left.dot + 1;
    if (dot < rule.symbols.length) {
      const symbol = rule.symbols[dot]!;
      if (symbol < 0 ? ahead.matches[-1 - symbol] === 0 : ahead.viable[symbol] === 0) return undefined;
      return new State(rule, dot, left.reference, left.wantedBy, left, value);
    }
    // The children's values, first to last (nearley's `State.build`).
    const children = new Array<unknown>(dot);
    children[dot - 1] = value;
    let node = left;
    for (let i = dot - 1; i--; node = node.left!) children[i] = node.data;
    return new State(rule, dot, left.reference, left.wantedBy, null, children);
  }

  private lookaheadFor(token: Token | undefined): Lookahead {
    if (token === undefined) return this.end;
    const byType = this.lookaheads[token.adjacent === true ? 1 : 0]!;
    let entry = byType.get(token.type);
    if (entry === undefined) {
      entry = { byText: new Map() };
      byType.set(token.type, entry);
    }
    // Tokens that agree on type, `adjacent` and any text a terminal looks at match the same terminals.
    if (this.literals.has(token.text) || textsTested.has(token.text)) {
      let found = entry.byText.get(token.text);
      if (found === undefined) {
        found = this.lookahead(token);
        entry.byText.set(token.text, found);
      }
      return found;
    }
    return (entry.plain ??= this.lookahead(token));
  }

  private lookahead(token: Token | undefined): Lookahead {
    const matches = new Uint8Array(this.terminals.length);
    if (token !== undefined)
      this.terminals.forEach((terminal, id) => (matches[id] = matchesTerminal(terminal, token) ? 1 : 0));
    const predictions: CompiledRule[][] = Array.from({ length: this.nonterminals }, () => []);
    const viable = new Uint8Array(this.nonterminals);
    for (const rule of this.rules) {
      if (rule.nullable || rule.first.some((id) => matches[id] === 1)) {
        predictions[rule.name]!.push(rule);
        viable[rule.name] = 1;
      }
    }
    return { matches, predictions, viable };
  }
}

/** Adds the terminals `symbols` can begin with to `into`; true when the whole sequence can derive nothing. */
function sequenceFirst(
  symbols: readonly number[],
  nullable: Uint8Array,
  first: readonly Set<number>[],
  into: Set<number>,
): boolean {
  for (const symbol of symbols) {
    if (symbol < 0) {
      into.add(-1 - symbol);
      return false;
    }
    for (const terminal of first[symbol]!) into.add(terminal);
    if (nullable[symbol] === 0) return false;
  }
  return true;
}

/** nearley's test of a token against a terminal (`Parser.prototype.feed`). */
function matchesTerminal(terminal: Terminal, token: Token): boolean {
  if (terminal.test) return terminal.test(token);
  if (terminal.type) return terminal.type === token.type;
  return terminal.literal === token.text;
}
