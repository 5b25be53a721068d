/**
 * Small generated programs that run, each with its meaning computed apart from prosec: a seeded
 * program of sessions, `let` and reassignment, `repeat` and `for` loops, `parallel:` branches,
 * `parallel for`, `if`/`else` on a judgment, `try`/`catch`/`finally` around a failing session, and
 * block calls; and a reference interpreter of that subset that says which sessions the run must ask
 * (each prompt is unique: it names its site and the loop variables around it), which of them must come
 * before which, how many judgments it asks, and the outputs it must end with.
 *
 * The model the reference assumes (and `answerLikeReference` plays): a session answers `R(<its task>)`;
 * a session whose task starts with `FAIL` fails (a non-retryable 500); a judgment is true when its
 * condition has an even number of characters.
 */
import { pick, seededRandom } from "./random.js";

/** A string with `{name}` holes: a literal head, then the names it interpolates. */
interface Template {
  readonly head: string;
  readonly names: readonly string[];
}

type Statement =
  | { readonly kind: "let"; readonly name: string; readonly prompt: Template }
  | { readonly kind: "assign"; readonly name: string; readonly prompt: Template }
  | { readonly kind: "say"; readonly prompt: Template }
  | { readonly kind: "fail"; readonly prompt: Template }
  | { readonly kind: "repeat"; readonly count: number; readonly index: string; readonly body: readonly Statement[] }
  | {
      readonly kind: "for";
      readonly parallel: boolean;
      readonly item: string;
      readonly items: readonly string[];
      readonly body: readonly Statement[];
    }
  | { readonly kind: "parallel"; readonly branches: readonly ParallelBranch[]; readonly ignore?: true }
  /** `let name = []`, then a loop that appends a session's answer to it each iteration. */
  | { readonly kind: "collect"; readonly name: string; readonly loop: Statement & { readonly kind: "for" } }
  | { readonly kind: "append"; readonly name: string; readonly prompt: Template }
  | {
      readonly kind: "pipeline";
      readonly name: string;
      readonly stage: "map" | "pmap";
      readonly items: readonly string[];
      readonly prompt: Template;
    }
  | { readonly kind: "jump"; readonly jump: "break" | "continue" }
  | {
      readonly kind: "if";
      readonly condition: Template;
      readonly then: readonly Statement[];
      readonly otherwise?: readonly Statement[];
    }
  | {
      readonly kind: "try";
      readonly body: readonly Statement[];
      readonly recover: readonly Statement[];
      readonly always?: readonly Statement[];
    }
  | { readonly kind: "call"; readonly name?: string; readonly block: string; readonly argument: Template };

/** A `parallel:` branch: a session, or a `try:` around one with a `catch:` session. */
interface ParallelBranch {
  readonly name: string;
  readonly prompt: Template;
  readonly recover?: Template;
  /** A failing session the block goes on without (`on-fail: "ignore"`). */
  readonly ignored?: true;
}

interface Block {
  readonly name: string;
  readonly parameter: string;
  readonly body: readonly Statement[];
  /** The binding the block's `output` returns. */
  readonly result: string;
}

export interface RunnableProgram {
  readonly seed: number;
  readonly source: string;
  /** What a run must do, by the reference interpreter. */
  readonly expected: Expected;
}

/** The order sessions must come in: a sequence, whose parts run one after another, or branches that run side by side. */
export type Order =
  | { readonly kind: "session"; readonly prompt: string }
  | { readonly kind: "sequence"; readonly parts: readonly Order[] }
  | { readonly kind: "side-by-side"; readonly parts: readonly Order[] };

export interface Expected {
  /** Every session's task, failing ones included, as the run asks them (in no particular order). */
  readonly sessions: readonly string[];
  readonly order: Order;
  readonly judgments: number;
  readonly outputs: Readonly<Record<string, string | readonly string[] | null>>;
}

/** The reference model's answer to a session's task. */
export const sessionAnswer = (task: string): string => `R(${task})`;
/** The reference model's verdict on a judgment's condition. */
export const verdict = (condition: string): boolean => condition.length % 2 === 0;
export const FAILING = "FAIL";

// ---------------------------------------------------------------- generating

class Generator {
  private sites = 0;
  private names = 0;
  readonly blocks: Block[] = [];

  constructor(private readonly random: () => number) {}

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private site(): string {
    return `S${++this.sites}`;
  }

  fresh(prefix: string): string {
    return `${prefix}${++this.names}`;
  }

  /**
   * A prompt: its site, every loop variable and parameter around it (so each occurrence is unique), and
   * now and then a binding's value.
   */
  template(head: string, scope: Scope): Template {
    const names = [...scope.unique];
    if (scope.values.length > 0 && this.chance(0.5)) names.push(pick(this.random, scope.values));
    return { head, names };
  }

  /** A sequence of statements at `depth`; `scope` is what it may read and reassign. */
  /** A sequence of statements at `depth`; what it binds goes to `local` (a scope of its own unless given). */
  sequence(
    depth: number,
    scope: Scope,
    length: number,
    local: Scope = { ...scope, values: [...scope.values], mutable: [...scope.mutable], quiet: [...scope.quiet] },
  ): Statement[] {
    const statements: Statement[] = [];
    for (let index = 0; index < length; index++) statements.push(this.statement(depth, local));
    return statements;
  }

  private statement(depth: number, scope: Scope): Statement {
    const nested = depth < 3;
    const roll = this.random();
    if (roll < 0.2 || !nested) {
      const name = this.fresh("v");
      const statement: Statement = { kind: "let", name, prompt: this.template(this.site(), scope) };
      scope.values.push(name);
      if (!scope.inBranch) scope.mutable.push(name);
      return statement;
    }
    if (roll < 0.3 && scope.mutable.length > 0) {
      const name = pick(this.random, scope.mutable);
      return { kind: "assign", name, prompt: { head: this.site(), names: [...scope.unique, name] } };
    }
    if (roll < 0.4) return { kind: "say", prompt: this.template(this.site(), scope) };
    if (roll < 0.5) {
      const index = this.fresh("i");
      const inner = { ...scope, unique: [...scope.unique, index], inLoop: true };
      const body = this.sequence(depth + 1, inner, 1 + Math.floor(this.random() * 2));
      return { kind: "repeat", count: 1 + Math.floor(this.random() * 3), index, body };
    }
    if (roll < 0.6) {
      const item = this.fresh("x");
      const parallel = this.chance(0.5);
      const items = Array.from({ length: Math.floor(this.random() * 3) }, (_, index) => `${item}-${index}`);
      const inner = itemScope(scope, item, parallel);
      const body = this.sequence(depth + 1, inner, 1 + Math.floor(this.random() * 2));
      return { kind: "for", parallel, item, items, body };
    }
    if (roll < 0.7) {
      // Under `on-fail: "ignore"` a branch may fail outright: the block goes on, the branch's name is null.
      const ignore = this.chance(0.3);
      const branches = Array.from({ length: 2 + Math.floor(this.random() * 2) }, (): ParallelBranch => {
        const name = this.fresh("p");
        if (ignore && this.chance(0.4))
          return { name, prompt: { head: `${FAILING} ${this.site()}`, names: [...scope.unique] }, ignored: true };
        if (!this.chance(0.3)) return { name, prompt: this.template(this.site(), scope) };
        const head = this.chance(0.5) ? `${FAILING} ${this.site()}` : this.site();
        return { name, prompt: { head, names: [...scope.unique] }, recover: this.template(this.site(), scope) };
      });
      for (const branch of branches) (branch.ignored === true ? scope.quiet : scope.values).push(branch.name);
      return { kind: "parallel", branches, ...(ignore ? { ignore } : {}) };
    }
    if (roll < 0.8) {
      const condition = this.template(`C${++this.sites}`, scope);
      const then = this.sequence(depth + 1, scope, Math.floor(this.random() * 2));
      if (scope.inLoop && this.chance(0.4)) then.push({ kind: "jump", jump: this.chance(0.5) ? "break" : "continue" });
      if (then.length === 0) then.push({ kind: "say", prompt: this.template(this.site(), scope) });
      const otherwise = this.chance(0.5) ? this.sequence(depth + 1, scope, 1) : undefined;
      return { kind: "if", condition, then, ...(otherwise === undefined ? {} : { otherwise }) };
    }
    if (roll < 0.9 && !scope.inBranch) {
      const body = this.sequence(depth + 1, scope, Math.floor(this.random() * 2));
      // The failure: the rest of the body never runs.
      if (this.chance(0.7))
        body.splice(Math.floor(this.random() * (body.length + 1)), 0, {
          kind: "fail",
          prompt: { head: `${FAILING} ${this.site()}`, names: [...scope.unique] },
        });
      if (body.length === 0) body.push({ kind: "say", prompt: this.template(this.site(), scope) });
      const recover = this.sequence(depth + 1, scope, 1);
      const always = this.chance(0.5) ? this.sequence(depth + 1, scope, 1) : undefined;
      return { kind: "try", body, recover, ...(always === undefined ? {} : { always }) };
    }
    if (roll < 0.93) {
      const name = this.fresh("l");
      const item = this.fresh("x");
      const parallel = this.chance(0.5);
      const items = Array.from({ length: Math.floor(this.random() * 4) }, (_, index) => `${item}-${index}`);
      const inner = itemScope(scope, item, parallel);
      const body = this.chance(0.5) ? this.sequence(depth + 1, inner, 1) : [];
      body.push({ kind: "append", name, prompt: this.template(this.site(), inner) });
      scope.values.push(name);
      return { kind: "collect", name, loop: { kind: "for", parallel, item, items, body } };
    }
    if (roll < 0.96) {
      const name = this.fresh("m");
      const items = Array.from({ length: Math.floor(this.random() * 4) }, (_, index) => `${name}-${index}`);
      scope.values.push(name);
      return {
        kind: "pipeline",
        name,
        stage: this.chance(0.5) ? "map" : "pmap",
        items,
        prompt: { head: this.site(), names: [...scope.unique, "item"] },
      };
    }
    const block = this.block();
    const name = this.chance(0.5) ? this.fresh("c") : undefined;
    if (name !== undefined) {
      scope.values.push(name);
      if (!scope.inBranch) scope.mutable.push(name);
    }
    return {
      kind: "call",
      block: block.name,
      argument: { head: `A${++this.sites}`, names: [...scope.unique] },
      ...(name === undefined ? {} : { name }),
    };
  }

  /** A block of a session or two over its parameter; a new one, or one already written. */
  private block(): Block {
    if (this.blocks.length > 0 && this.chance(0.5)) return pick(this.random, this.blocks);
    const parameter = this.fresh("q");
    const result = this.fresh("r");
    const scope: Scope = { unique: [parameter], values: [], mutable: [], inBranch: false, inLoop: false, quiet: [] };
    const body: Statement[] = [];
    if (this.chance(0.5)) body.push({ kind: "say", prompt: this.template(this.site(), scope) });
    body.push({ kind: "let", name: result, prompt: this.template(this.site(), scope) });
    const block = { name: this.fresh("b"), parameter, body, result };
    this.blocks.push(block);
    return block;
  }
}

interface Scope {
  /** Loop variables and parameters: what makes a prompt unique per occurrence. */
  unique: readonly string[];
  /** Bindings a prompt may interpolate. */
  values: string[];
  /** `let` bindings a statement may reassign (none inside a branch: branches must not race). */
  mutable: string[];
  inBranch: boolean;
  /** Inside a sequential loop's body (not across a branch or block): `break` and `continue` may stand here. */
  inLoop: boolean;
  /** Bindings that may be `null` (a branch an `on-fail: "ignore"` block went on without): outputs, never interpolated. */
  quiet: string[];
}

// ---------------------------------------------------------------- writing

function text(template: Template): string {
  return [template.head, ...template.names.map((name) => `{${name}}`)].join(" ");
}

function write(statements: readonly Statement[], depth: number, out: string[]): void {
  const line = (text: string, extra = 0): number => out.push(`${"  ".repeat(depth + extra)}${text}`);
  for (const statement of statements) {
    switch (statement.kind) {
      case "let":
        line(`let ${statement.name} = session "${text(statement.prompt)}"`);
        break;
      case "assign":
        line(`${statement.name} = session "${text(statement.prompt)}"`);
        break;
      case "say":
      case "fail":
        line(`session "${text(statement.prompt)}"`);
        break;
      case "repeat":
        line(`repeat ${statement.count} as ${statement.index}:`);
        write(statement.body, depth + 1, out);
        break;
      case "for":
        line(
          `${statement.parallel ? "parallel for" : "for"} ${statement.item} in [${statement.items.map((item) => `"${item}"`).join(", ")}]:`,
        );
        write(statement.body, depth + 1, out);
        break;
      case "parallel":
        line(statement.ignore === true ? 'parallel (on-fail: "ignore"):' : "parallel:");
        for (const branch of statement.branches) {
          if (branch.recover === undefined) {
            line(`${branch.name} = session "${text(branch.prompt)}"`, 1);
            continue;
          }
          line(`${branch.name} = try:`, 1);
          line(`session "${text(branch.prompt)}"`, 2);
          line("catch:", 1);
          line(`session "${text(branch.recover)}"`, 2);
        }
        break;
      case "collect":
        line(`let ${statement.name} = []`);
        write([statement.loop], depth, out);
        break;
      case "append":
        line(`${statement.name} = ${statement.name} + [session "${text(statement.prompt)}"]`);
        break;
      case "pipeline":
        line(
          `let ${statement.name} = [${statement.items.map((item) => `"${item}"`).join(", ")}] | ${statement.stage}:`,
        );
        line(`session "${text(statement.prompt)}"`, 1);
        break;
      case "jump":
        line(statement.jump);
        break;
      case "if":
        line(`if **${text(statement.condition)}**:`);
        write(statement.then, depth + 1, out);
        if (statement.otherwise !== undefined) {
          line("else:");
          write(statement.otherwise, depth + 1, out);
        }
        break;
      case "try":
        line("try:");
        write(statement.body, depth + 1, out);
        line("catch:");
        write(statement.recover, depth + 1, out);
        if (statement.always !== undefined) {
          line("finally:");
          write(statement.always, depth + 1, out);
        }
        break;
      case "call": {
        const call = `do ${statement.block}("${text(statement.argument)}")`;
        line(statement.name === undefined ? call : `let ${statement.name} = ${call}`);
        break;
      }
    }
  }
}

// ---------------------------------------------------------------- the reference

/** A run stopped by a failing session, caught by the nearest `try`. */
class Failed {}

/** A `break` or `continue`, caught by the innermost loop. */
class Jump {
  constructor(readonly jump: "break" | "continue") {}
}

type Value = string | readonly string[] | null;

class Reference {
  readonly sessions: string[] = [];
  judgments = 0;

  constructor(private readonly blocks: ReadonlyMap<string, Block>) {}

  private render(template: Template, env: Map<string, Value>): string {
    return [template.head, ...template.names.map((name) => rendered(env.get(name)!))].join(" ");
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

  private ask(prompt: string, parts: Order[]): string {
    this.sessions.push(prompt);
    parts.push({ kind: "session", prompt });
    if (prompt.startsWith(FAILING)) throw new Failed();
    return sessionAnswer(prompt);
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
          this.ask(this.render(statement.prompt, env), parts);
          break;
        case "repeat":
          for (let index = 0; index < statement.count; index++) {
            env.set(statement.index, String(index));
            if (!this.iteration(statement.body, env, parts)) break;
          }
          break;
        case "for": {
          if (!statement.parallel) {
            for (const item of statement.items) {
              env.set(statement.item, item);
              if (!this.iteration(statement.body, env, parts)) break;
            }
            break;
          }
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
          break;
        }
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
          const answers: string[] = [];
          const items: Order[] = [];
          for (const item of statement.items) {
            const inner: Order[] = [];
            answers.push(this.ask(this.render(statement.prompt, new Map([...env, ["item", item]])), inner));
            items.push({ kind: "sequence", parts: inner });
          }
          if (statement.stage === "pmap") parts.push({ kind: "side-by-side", parts: items });
          else parts.push(...items);
          env.set(statement.name, answers);
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
          try {
            this.run(statement.body, env, parts);
          } catch (error) {
            if (!(error instanceof Failed)) throw error;
            this.run(statement.recover, env, parts);
          } finally {
            if (statement.always !== undefined) this.run(statement.always, env, parts);
          }
          break;
        case "call": {
          const block = this.blocks.get(statement.block)!;
          const frame = new Map<string, Value>([[block.parameter, this.render(statement.argument, env)]]);
          this.run(block.body, frame, parts);
          if (statement.name !== undefined) env.set(statement.name, frame.get(block.result)!);
          break;
        }
      }
    }
  }
}

/** The program of `seed`, with what its run must do. */
export function runnableProgram(seed: number, length = 6): RunnableProgram {
  const generator = new Generator(seededRandom(seed));
  const scope: Scope = { unique: [], values: [], mutable: [], inBranch: false, inLoop: false, quiet: [] };
  const main = generator.sequence(0, scope, length, scope);
  const outputs = [...scope.values, ...scope.quiet];

  const out: string[] = [];
  for (const block of generator.blocks) {
    out.push(`block ${block.name}(${block.parameter}):`);
    write(block.body, 1, out);
    out.push(`  output ${block.result}`, "");
  }
  write(main, 0, out);
  for (const name of outputs) out.push(`output o${name} = ${name}`);

  const reference = new Reference(new Map(generator.blocks.map((block) => [block.name, block])));
  const env = new Map<string, Value>();
  const parts: Order[] = [];
  reference.run(main, env, parts);
  return {
    seed,
    source: `${out.join("\n")}\n`,
    expected: {
      sessions: reference.sessions,
      order: { kind: "sequence", parts },
      judgments: reference.judgments,
      outputs: Object.fromEntries(outputs.map((name) => [`o${name}`, env.get(name)!])),
    },
  };
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

/**
 * The scope of a `for` item's body. A `parallel for` item is a branch: it reads the bindings around
 * it and reassigns none of them.
 */
function itemScope(scope: Scope, item: string, parallel: boolean): Scope {
  const inner: Scope = {
    ...scope,
    unique: [...scope.unique, item],
    inBranch: scope.inBranch || parallel,
    inLoop: !parallel,
  };
  if (parallel) inner.mutable = [];
  return inner;
}
