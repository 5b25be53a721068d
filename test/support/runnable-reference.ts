/**
 * The reference interpreter of the runnable programs' subset (test/support/runnable-statements.ts),
 * written apart from prosec: which sessions a run must ask (each as many times as the model makes it
 * retry), which of them must come before which, how many judgments it asks, and the values it ends with.
 */
import {
  failuresOf,
  SERVER_ERROR,
  sessionAnswer,
  verdict,
  type Block,
  type Position,
  type Stage,
  type Statement,
  type Template,
  type Valued,
} from "./runnable-statements.js";

/** The order sessions must come in: a sequence, whose parts run one after another, or branches that run side by side. */
export type Order =
  | { readonly kind: "session"; readonly prompt: string }
  | { readonly kind: "sequence"; readonly parts: readonly Order[] }
  | { readonly kind: "side-by-side"; readonly parts: readonly Order[] };

export type Value = string | readonly string[] | null;

/** A failure (a session's or a `throw`), caught by the nearest `try`; `message` is what `catch as` binds. */
class Failed {
  constructor(readonly message: string) {}
}

/** A `break` or `continue`, caught by the innermost loop; `value` is what its iteration gave before it. */
class Jump {
  value: Value | undefined;
  constructor(readonly jump: "break" | "continue") {}
}

/** What the reference needs of the program's text: its file, its blocks, where each raising statement stands. */
export interface ProgramText {
  readonly file: string;
  readonly blocks: ReadonlyMap<string, Block>;
  readonly positions: ReadonlyMap<Statement, Position>;
}

export class Reference {
  readonly sessions: string[] = [];
  judgments = 0;

  constructor(private readonly program: ProgramText) {}

  private render(template: Template, env: ReadonlyMap<string, Value>): string {
    return [template.head, ...template.names.map((name) => rendered(env.get(name)!))].join(" ");
  }

  /** Where `statement` stands, as an error raised there starts. */
  private where(statement: Statement): string {
    const at = this.program.positions.get(statement)!;
    return `${this.program.file}:${at.line}:${at.column}`;
  }

  /** One iteration of a sequential loop: whether the loop goes on. */
  private iteration(body: readonly Statement[], env: Map<string, Value>, parts: Order[]): boolean {
    try {
      this.run(body, env, parts);
      return true;
    } catch (error) {
      if (!(error instanceof Jump)) throw error;
      return error.jump === "continue";
    }
  }

  /** Asks a session `1 + retries` times at most: its answer, or its failure raised at `statement`. */
  private ask(prompt: string, parts: Order[], statement?: Statement, retries = 0): string {
    parts.push({ kind: "session", prompt });
    const failures = failuresOf(prompt);
    for (let attempt = 0; ; attempt++) {
      this.sessions.push(prompt);
      if (attempt >= failures) return sessionAnswer(prompt);
      // A parallel branch's failure (`statement` undefined) is caught by the branch, which binds no message.
      if (attempt === retries)
        throw new Failed(
          statement === undefined
            ? ""
            : `${this.where(statement)}: ${prompt} failed: ${SERVER_ERROR} (session "${prompt}")`,
        );
    }
  }

  /** Runs `body` with `name` bound to `value`, then gives `name` back the value it had (a shadowed binding). */
  private shadowing<T>(env: Map<string, Value>, name: string, body: () => T): T {
    const had = env.has(name);
    const before = env.get(name);
    try {
      return body();
    } finally {
      if (had) env.set(name, before!);
      else env.delete(name);
    }
  }

  /** Runs `statements` in `env` (which it binds into), adding what they ask to `parts`. */
  run(statements: readonly Statement[], env: Map<string, Value>, parts: Order[]): void {
    for (const statement of statements) {
      switch (statement.kind) {
        case "let":
        case "assign":
          env.set(statement.name, this.ask(this.render(statement.prompt, env), parts));
          break;
        case "say":
        case "fail":
          this.ask(this.render(statement.prompt, env), parts, statement);
          break;
        case "retried": {
          const answer = this.ask(this.render(statement.prompt, env), parts, statement, statement.retries);
          if (statement.name !== undefined) env.set(statement.name, answer);
          break;
        }
        case "throw":
          throw new Failed(`${this.where(statement)}: ${statement.message}`);
        case "repeat":
          this.shadowing(env, statement.index, () => {
            for (let index = 0; index < statement.count; index++) {
              env.set(statement.index, String(index));
              if (!this.iteration(statement.body, env, parts)) break;
            }
          });
          break;
        case "loop":
          this.shadowing(env, statement.index, () => {
            for (let index = 0; index < statement.max; index++) {
              env.set(statement.index, String(index));
              // The condition is judged before each iteration; none is judged once `max` is reached.
              if (statement.judged !== undefined) {
                this.judgments++;
                const holds = verdict(this.render(statement.judged.condition, env));
                if (holds === (statement.judged.mode === "until")) break;
              }
              if (!this.iteration(statement.body, env, parts)) break;
            }
          });
          break;
        case "for":
          if (statement.parallel) this.parallelFor(statement, env, parts);
          else
            this.shadowing(env, statement.item, () => {
              for (const item of statement.items) {
                env.set(statement.item, item);
                if (!this.iteration(statement.body, env, parts)) break;
              }
            });
          break;
        case "parallel": {
          const branches = statement.branches.map((branch) => {
            const inner: Order[] = [];
            let value: string | null;
            try {
              value = this.ask(this.render(branch.prompt, env), inner);
            } catch (error) {
              if (!(error instanceof Failed)) throw error;
              if (statement.ignore === true && branch.recover === undefined) value = null;
              else if (branch.recover === undefined) throw error;
              else value = this.ask(this.render(branch.recover, env), inner);
            }
            return { name: branch.name, value, order: { kind: "sequence", parts: inner } as const };
          });
          parts.push({ kind: "side-by-side", parts: branches.map((branch) => branch.order) });
          for (const branch of branches) env.set(branch.name, branch.value);
          break;
        }
        case "collect":
          env.set(statement.name, []);
          this.run([statement.loop], env, parts);
          break;
        case "append": {
          const answer = this.ask(this.render(statement.prompt, env), parts);
          env.set(statement.name, [...(env.get(statement.name) as readonly string[]), answer]);
          break;
        }
        case "pipeline": {
          let value: Value = statement.items;
          for (const stage of statement.stages) value = this.stage(stage, value as readonly string[], env, parts);
          env.set(statement.name, value);
          break;
        }
        case "jump":
          throw new Jump(statement.jump);
        case "if":
          this.judgments++;
          if (verdict(this.render(statement.condition, env))) this.run(statement.then, env, parts);
          else if (statement.otherwise !== undefined) this.run(statement.otherwise, env, parts);
          break;
        case "try":
          this.try(statement, env, parts);
          break;
        case "call":
          this.produced(statement, env, parts);
          break;
        case "valued":
          env.set(statement.name, this.valueOf(statement.construct, env, parts));
          break;
      }
    }
  }

  /**
   * Runs a simple sequence (what a valued construct's bodies hold): the value of its last statement
   * that gave one, undefined when none did. A `break` or `continue` leaving it carries that value.
   */
  private sequenceValue(statements: readonly Statement[], env: Map<string, Value>, parts: Order[]): Value | undefined {
    let value: Value | undefined;
    try {
      for (const statement of statements) value = this.produced(statement, env, parts) ?? value;
    } catch (error) {
      if (error instanceof Jump && error.value === undefined) error.value = value;
      throw error;
    }
    return value;
  }

  /** Runs one statement of a simple sequence: the value it gives, undefined for none. */
  private produced(statement: Statement, env: Map<string, Value>, parts: Order[]): Value | undefined {
    switch (statement.kind) {
      case "say":
        return this.ask(this.render(statement.prompt, env), parts);
      case "let":
      case "assign":
        this.run([statement], env, parts);
        return env.get(statement.name);
      case "if": {
        this.judgments++;
        if (verdict(this.render(statement.condition, env))) return this.sequenceValue(statement.then, env, parts);
        return statement.otherwise === undefined ? undefined : this.sequenceValue(statement.otherwise, env, parts);
      }
      case "try":
        return this.try(statement, env, parts);
      case "call": {
        const block = this.program.blocks.get(statement.block)!;
        const argument = this.render(statement.argument, env);
        const value = this.call(block, argument, statement.depth ?? 0, parts);
        if (statement.name !== undefined) env.set(statement.name, value);
        return value;
      }
      default:
        this.run([statement], env, parts);
        return undefined;
    }
  }

  /** A valued construct's value (runnable-statements.ts, `Valued`). */
  private valueOf(construct: Valued["construct"], env: Map<string, Value>, parts: Order[]): Value {
    switch (construct.kind) {
      case "try":
        return this.try(construct, env, parts) ?? null;
      case "for": {
        if (construct.parallel) {
          const values: Value[] = [];
          const items = construct.items.map((item) => {
            const inner: Order[] = [];
            values.push(this.sequenceValue(construct.body, new Map([...env, [construct.item, item]]), inner) ?? null);
            return { kind: "sequence", parts: inner } as const;
          });
          parts.push({ kind: "side-by-side", parts: items });
          return values as readonly string[];
        }
        const values: Value[] = [];
        this.shadowing(env, construct.item, () => {
          for (const item of construct.items) {
            env.set(construct.item, item);
            const { value, goesOn } = this.iterationValue(construct.body, env, parts);
            values.push(value);
            if (!goesOn) break;
          }
        });
        return values as readonly string[];
      }
      case "repeat":
      case "loop": {
        let last: Value = null;
        this.shadowing(env, construct.index, () => {
          const count = construct.kind === "repeat" ? construct.count : construct.max;
          for (let index = 0; index < count; index++) {
            env.set(construct.index, String(index));
            if (construct.kind === "loop" && construct.judged !== undefined) {
              this.judgments++;
              const holds = verdict(this.render(construct.judged.condition, env));
              if (holds === (construct.judged.mode === "until")) break;
            }
            const { value, goesOn } = this.iterationValue(construct.body, env, parts);
            last = value;
            if (!goesOn) break;
          }
        });
        return last;
      }
    }
  }

  /** One iteration of a valued loop: its value (`null` for none, or for a `continue`), and whether the loop goes on. */
  private iterationValue(
    body: readonly Statement[],
    env: Map<string, Value>,
    parts: Order[],
  ): { value: Value; goesOn: boolean } {
    try {
      return { value: this.sequenceValue(body, env, parts) ?? null, goesOn: true };
    } catch (error) {
      if (!(error instanceof Jump)) throw error;
      return error.jump === "continue" ? { value: null, goesOn: true } : { value: error.value ?? null, goesOn: false };
    }
  }

  private parallelFor(statement: Statement & { kind: "for" }, env: Map<string, Value>, parts: Order[]): void {
    const appended = new Map<string, string[]>();
    const items = statement.items.map((item) => {
      const inner: Order[] = [];
      const scope = new Map([...env, [statement.item, item]]);
      this.run(statement.body, scope, inner);
      // An item appends to an outer list: the answers are collected in item order.
      for (const [name, value] of scope) {
        const before = env.get(name);
        if (Array.isArray(before) && Array.isArray(value) && value !== before)
          appended.set(name, [...(appended.get(name) ?? []), ...value.slice(before.length)]);
      }
      return { kind: "sequence", parts: inner } as const;
    });
    for (const [name, added] of appended) env.set(name, [...(env.get(name) as readonly string[]), ...added]);
    parts.push({ kind: "side-by-side", parts: items });
  }

  /**
   * A `try:`: the value its body gave, else (it failed) its catch's: a failed body gives none
   * (docs/language.md, "Blocks"); a `finally:` never gives it.
   */
  private try(statement: Statement & { kind: "try" }, env: Map<string, Value>, parts: Order[]): Value | undefined {
    try {
      return this.sequenceValue(statement.body, env, parts);
    } catch (error) {
      if (!(error instanceof Failed)) throw error;
      const binding = statement.binding;
      if (binding === undefined) return this.sequenceValue(statement.recover, env, parts);
      return this.shadowing(env, binding, () => {
        env.set(binding, error.message);
        return this.sequenceValue(statement.recover, env, parts);
      });
    } finally {
      if (statement.always !== undefined) this.run(statement.always, env, parts);
    }
  }

  /** One pipeline stage over `items`: its list, or a `reduce`'s accumulator (null over no items). */
  private stage(stage: Stage, items: readonly string[], env: ReadonlyMap<string, Value>, parts: Order[]): Value {
    if (stage.stage === "reduce") {
      if (items.length === 0) return null;
      let accumulator = items[0]!;
      for (const element of items.slice(1)) {
        const frame = new Map([...env, [stage.accumulator, accumulator], [stage.element, element]]);
        accumulator = this.ask(this.render(stage.prompt, frame), parts);
      }
      return accumulator;
    }
    const orders: Order[] = [];
    const kept: string[] = [];
    for (const item of items) {
      const inner: Order[] = [];
      const prompt = this.render(stage.prompt, new Map([...env, ["item", item]]));
      const answer = this.ask(prompt, inner);
      if (stage.stage !== "filter") kept.push(answer);
      else if (verdict(prompt)) kept.push(item);
      orders.push({ kind: "sequence", parts: inner });
    }
    if (stage.stage === "pmap") parts.push({ kind: "side-by-side", parts: orders });
    else parts.push(...orders);
    return kept;
  }

  /** A block call in a frame of its own: the block's output. */
  private call(block: Block, argument: string, depth: number, parts: Order[]): Value {
    if (block.kind === "plain") {
      const frame = new Map<string, Value>([[block.parameter, argument]]);
      this.run(block.body, frame, parts);
      return frame.get(block.result)!;
    }
    const frame = new Map<string, Value>([
      [block.parameter, argument],
      [block.depth, String(depth)],
    ]);
    if (depth <= 0) return this.ask(this.render(block.base, frame), parts);
    frame.set(block.below, this.call(block, argument, depth - 1, parts));
    return this.ask(this.render(block.step, frame), parts);
  }
}

/** A value as interpolation renders it: text as it is, a list of texts as a markdown list, an empty one as `[]`. */
function rendered(value: Value): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (value.length === 0) return "[]";
  return value.map((item) => `- ${item.replace(/\n/g, "\n  ")}`).join("\n");
}

/**
 * Where `order` is broken by the arrival of sessions (`arrival`: each task's index): the first part
 * of a sequence that began before the part before it ended, else undefined.
 */
export function orderBroken(order: Order, arrival: ReadonlyMap<string, number>): string | undefined {
  let broken: string | undefined;
  const span = (node: Order): { first: number; last: number } | undefined => {
    if (node.kind === "session") {
      const at = arrival.get(node.prompt);
      return at === undefined ? undefined : { first: at, last: at };
    }
    let whole: { first: number; last: number } | undefined;
    let previous: { first: number; last: number } | undefined;
    let previousNode: Order | undefined;
    for (const part of node.parts) {
      const current = span(part);
      if (current === undefined) continue;
      if (node.kind === "sequence" && previous !== undefined && current.first < previous.last)
        broken ??= `${describe(part)} started before ${describe(previousNode!)} ended`;
      whole =
        whole === undefined
          ? current
          : { first: Math.min(whole.first, current.first), last: Math.max(whole.last, current.last) };
      previous = current;
      previousNode = part;
    }
    return whole;
  };
  span(order);
  return broken;
}

function describe(order: Order): string {
  if (order.kind === "session") return JSON.stringify(order.prompt);
  const first = order.parts[0];
  return first === undefined ? order.kind : `${order.kind} from ${describe(first)}`;
}
