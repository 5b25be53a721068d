/**
 * Small generated programs that run, each with its meaning computed apart from prosec: a seeded
 * program of sessions, `let` and reassignment, `repeat`, `for` and judged `loop until/while (max: N)`
 * loops (a loop variable now and then shadowing an outer binding), `parallel:` branches, `parallel
 * for`, `if`/`else` on a judgment, `try`/`catch as`/`finally` around a failing session, a `throw` or a
 * session whose `retry:` runs out, sessions that fail and then answer under `retry:`, pipelines
 * (`map`, `pmap`, `filter`, `reduce`, chained) over empty, short and long lists, and block calls, some
 * of them recursive; and a reference interpreter of that subset (runnable-reference.ts) that says which
 * sessions the run must ask (each prompt is unique: it names its site and the loop variables around
 * it), which of them must come before which, how many judgments it asks, and the outputs it must end
 * with. The model both play is in runnable-statements.ts.
 */
import { pick, seededRandom } from "./random.js";
import { Reference, type Order, type Value } from "./runnable-reference.js";
import {
  FAILING,
  FLAKY,
  type Block,
  type ParallelBranch,
  type Position,
  type Stage,
  type Statement,
  type Template,
  type Valued,
} from "./runnable-statements.js";

export { orderBroken, type Order } from "./runnable-reference.js";
export { FAILING, failuresOf, sessionAnswer, verdict } from "./runnable-statements.js";

export interface RunnableProgram {
  readonly seed: number;
  /** The name to compile it under: a `throw`'s and a failed session's message start with it. */
  readonly file: string;
  readonly source: string;
  /** What a run must do, by the reference interpreter. */
  readonly expected: Expected;
}

export interface Expected {
  /** Every session's task as the run asks it (in no particular order): failing ones, and each retry, included. */
  readonly sessions: readonly string[];
  readonly order: Order;
  readonly judgments: number;
  readonly outputs: Readonly<Record<string, Value>>;
}

// ---------------------------------------------------------------- generating

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
  /** Bindings that may be `null`: outputs, never interpolated. */
  quiet: string[];
}

const topScope = (): Scope => ({ unique: [], values: [], mutable: [], inBranch: false, inLoop: false, quiet: [] });

class Generator {
  private sites = 0;
  private names = 0;
  readonly blocks: Block[] = [];

  constructor(private readonly random: () => number) {}

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private count(from: number, to: number): number {
    return from + Math.floor(this.random() * (to - from + 1));
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

  /** A sequence of statements at `depth`; what it binds goes to `local` (a scope of its own unless given). */
  sequence(depth: number, scope: Scope, length: number, local: Scope = copy(scope)): Statement[] {
    const statements: Statement[] = [];
    for (let index = 0; index < length; index++) statements.push(this.statement(depth, local));
    return statements;
  }

  /** A loop variable's name: a new one, or now and then an outer `let`'s, which the loop shadows. */
  private loopVariable(prefix: string, scope: Scope): string {
    const shadowable = shadowableIn(scope);
    return shadowable.length > 0 && this.chance(0.25) ? pick(this.random, shadowable) : this.fresh(prefix);
  }

  private statement(depth: number, scope: Scope): Statement {
    const nested = depth < 3;
    const roll = this.random();
    if (roll < 0.17 || !nested) {
      const name = this.fresh("v");
      const statement: Statement = { kind: "let", name, prompt: this.template(this.site(), scope) };
      bind(scope, name);
      return statement;
    }
    if (roll < 0.25 && scope.mutable.length > 0) {
      const name = pick(this.random, scope.mutable);
      return { kind: "assign", name, prompt: { head: this.site(), names: [...scope.unique, name] } };
    }
    if (roll < 0.32) return { kind: "say", prompt: this.template(this.site(), scope) };
    if (roll < 0.38) {
      const index = this.fresh("i");
      const inner = { ...scope, unique: [...scope.unique, index], inLoop: true };
      const body = this.sequence(depth + 1, inner, this.count(1, 2));
      return { kind: "repeat", count: this.count(1, 3), index, body };
    }
    if (roll < 0.46) {
      const parallel = this.chance(0.5);
      const item = this.loopVariable("x", scope);
      const items = Array.from({ length: this.count(0, 2) }, (_, index) => `${item}-${this.sites}-${index}`);
      const body = this.sequence(depth + 1, itemScope(scope, item, parallel), this.count(1, 2));
      return { kind: "for", parallel, item, items, body };
    }
    if (roll < 0.53) return this.loop(depth, scope);
    if (roll < 0.6) return this.parallel(scope);
    if (roll < 0.68) {
      const condition = this.template(`C${++this.sites}`, scope);
      const then = this.sequence(depth + 1, scope, this.count(0, 1));
      if (scope.inLoop && this.chance(0.4)) then.push({ kind: "jump", jump: this.chance(0.5) ? "break" : "continue" });
      if (then.length === 0) then.push({ kind: "say", prompt: this.template(this.site(), scope) });
      const otherwise = this.chance(0.5) ? this.sequence(depth + 1, scope, 1) : undefined;
      return { kind: "if", condition, then, ...(otherwise === undefined ? {} : { otherwise }) };
    }
    if (roll < 0.78 && !scope.inBranch) return this.try(depth, scope);
    if (roll < 0.82) {
      const name = this.fresh("l");
      const item = this.fresh("x");
      const parallel = this.chance(0.5);
      const items = Array.from({ length: this.count(0, 3) }, (_, index) => `${item}-${index}`);
      const inner = itemScope(scope, item, parallel);
      const body = this.chance(0.5) ? this.sequence(depth + 1, inner, 1) : [];
      body.push({ kind: "append", name, prompt: this.template(this.site(), inner) });
      scope.values.push(name);
      return { kind: "collect", name, loop: { kind: "for", parallel, item, items, body } };
    }
    if (roll < 0.86) return this.pipeline(scope);
    if (roll < 0.9) {
      // A session the model fails `failures` times before it answers, with the retries to outlast them.
      const name = this.fresh("v");
      const failures = this.count(1, 2);
      const prompt = this.template(`${FLAKY}${failures} ${this.site()}`, scope);
      bind(scope, name);
      return { kind: "retried", name, prompt, retries: this.count(failures, 3) };
    }
    if (roll < 0.95) return this.valued(depth, scope);
    return this.call(scope);
  }

  /** `let name = for/parallel for/repeat/loop/try ...`, whose bodies are simple. */
  private valued(depth: number, scope: Scope): Statement {
    const name = this.fresh("w");
    const kinds = ["for", "parallel for", "repeat", "loop", ...(scope.inBranch ? [] : ["try" as const])] as const;
    const kind = pick(this.random, kinds);
    let construct: Valued["construct"];
    if (kind === "try") {
      // The failure anywhere in the body: what the body gave before it is dropped (docs/language.md:
      // a failed body gives none).
      const body = this.simpleSequence(depth + 1, scope, this.count(1, 2), "none");
      if (this.chance(0.6)) body.splice(this.count(0, body.length), 0, this.failure(scope));
      const recover = this.simpleSequence(depth + 1, scope, 1, "none");
      const always = this.chance(0.4) ? [this.say(scope)] : undefined;
      construct = { kind: "try", body, recover, ...(always === undefined ? {} : { always }) };
    } else if (kind === "for" || kind === "parallel for") {
      const parallel = kind === "parallel for";
      const item = this.fresh("x");
      const items = Array.from({ length: this.count(0, 3) }, (_, index) => `${item}-${index}`);
      const inner = itemScope(scope, item, parallel);
      const body = this.simpleSequence(depth + 1, inner, this.count(1, 2), parallel ? "none" : "both");
      construct = { kind: "for", parallel, item, items, body };
    } else {
      // What `continue` gives a `repeat` or `loop` whose value is used is not written down: only `break` here.
      const index = this.fresh("i");
      const inner = { ...scope, unique: [...scope.unique, index], inLoop: true };
      const body = this.simpleSequence(depth + 1, inner, this.count(1, 2), "break");
      construct =
        kind === "repeat"
          ? { kind: "repeat", count: this.count(1, 3), index, body }
          : {
              kind: "loop",
              max: this.count(1, 3),
              index,
              body,
              ...(this.chance(0.7)
                ? {
                    judged: {
                      mode: this.chance(0.5) ? "until" : "while",
                      condition: this.template(`C${++this.sites}`, inner),
                    },
                  }
                : {}),
            };
    }
    // Lists may hold nulls, a loop may run no iteration: an output, never interpolated.
    scope.quiet.push(name);
    return { kind: "valued", name, construct };
  }

  private say(scope: Scope): Statement {
    return { kind: "say", prompt: this.template(this.site(), scope) };
  }

  /** A valued construct's body: sessions, `let`s, reassignments, `if`s (which may leave by `jumps`), simple `try:`s and calls. */
  private simpleSequence(depth: number, outer: Scope, length: number, jumps: "none" | "break" | "both"): Statement[] {
    const scope = copy(outer);
    const statements: Statement[] = [];
    for (let index = 0; index < length; index++) {
      const roll = this.random();
      if (roll < 0.3 || depth >= 4) {
        const name = this.fresh("v");
        statements.push({ kind: "let", name, prompt: this.template(this.site(), scope) });
        bind(scope, name);
      } else if (roll < 0.5) statements.push(this.say(scope));
      else if (roll < 0.55 && scope.mutable.length > 0) {
        const name = pick(this.random, scope.mutable);
        statements.push({ kind: "assign", name, prompt: { head: this.site(), names: [...scope.unique, name] } });
      } else if (roll < 0.75) {
        const then = this.chance(0.7) ? this.simpleSequence(depth + 1, scope, 1, "none") : [];
        if (jumps !== "none" && (then.length === 0 || this.chance(0.5)))
          then.push({ kind: "jump", jump: jumps === "both" && this.chance(0.5) ? "continue" : "break" });
        if (then.length === 0) then.push(this.say(scope));
        const otherwise = this.chance(0.4) ? this.simpleSequence(depth + 1, scope, 1, "none") : undefined;
        const condition = this.template(`C${++this.sites}`, scope);
        statements.push({ kind: "if", condition, then, ...(otherwise === undefined ? {} : { otherwise }) });
      } else if (roll < 0.88 && !scope.inBranch) {
        const body = this.simpleSequence(depth + 1, scope, 1, "none");
        if (this.chance(0.6)) body.splice(this.count(0, body.length), 0, this.failure(scope));
        statements.push({ kind: "try", body, recover: this.simpleSequence(depth + 1, scope, 1, "none") });
      } else statements.push(this.call(scope));
    }
    return statements;
  }

  /** `loop until/while **...** (max: N) as i:`, or `loop (max: N) as i:` that only `max` (or a `break`) ends. */
  private loop(depth: number, scope: Scope): Statement {
    const index = this.fresh("i");
    const inner = { ...scope, unique: [...scope.unique, index], inLoop: true };
    const judged = this.chance(0.8)
      ? {
          mode: this.chance(0.5) ? ("until" as const) : ("while" as const),
          condition: this.template(`C${++this.sites}`, inner),
        }
      : undefined;
    const body = this.sequence(depth + 1, inner, this.count(1, 2));
    return { kind: "loop", max: this.count(1, 3), index, body, ...(judged === undefined ? {} : { judged }) };
  }

  private parallel(scope: Scope): Statement {
    // Under `on-fail: "ignore"` a branch may fail outright: the block goes on, the branch's name is null.
    const ignore = this.chance(0.3);
    const branches = Array.from({ length: this.count(2, 3) }, (): ParallelBranch => {
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

  /** A `try:` whose body (most of the time) fails, with a `catch:` that may bind the error and read it. */
  private try(depth: number, scope: Scope): Statement {
    const body = this.sequence(depth + 1, scope, this.count(0, 1));
    // The failure: the rest of the body never runs.
    if (this.chance(0.7)) body.splice(this.count(0, body.length), 0, this.failure(scope));
    if (body.length === 0) body.push({ kind: "say", prompt: this.template(this.site(), scope) });
    const shadowable = shadowableIn(scope);
    const binding = this.chance(0.6)
      ? shadowable.length > 0 && this.chance(0.25)
        ? pick(this.random, shadowable)
        : this.fresh("e")
      : undefined;
    const recover: Statement[] = [];
    if (binding !== undefined) {
      const inner = { ...copy(scope), mutable: scope.mutable.filter((name) => name !== binding) };
      if (this.chance(0.8))
        recover.push({ kind: "say", prompt: { head: this.site(), names: [...scope.unique, binding] } });
      recover.push(...this.sequence(depth + 1, inner, 1));
    } else recover.push(...this.sequence(depth + 1, scope, 1));
    const always = this.chance(0.5) ? this.sequence(depth + 1, scope, 1) : undefined;
    return {
      kind: "try",
      body,
      recover,
      ...(binding === undefined ? {} : { binding }),
      ...(always === undefined ? {} : { always }),
    };
  }

  /** What fails a `try` body: a failing session, one whose retries run out, a `throw`, or a judged `throw`. */
  private failure(scope: Scope): Statement {
    const roll = this.random();
    const failing = { head: `${FAILING} ${this.site()}`, names: [...scope.unique] };
    if (roll < 0.4) return { kind: "fail", prompt: failing };
    if (roll < 0.55) return { kind: "retried", prompt: failing, retries: this.count(1, 2) };
    const raise: Statement = { kind: "throw", message: `T${++this.sites}` };
    if (roll < 0.8) return raise;
    return { kind: "if", condition: this.template(`C${++this.sites}`, scope), then: [raise] };
  }

  /** `let m = [...] | stage: ...`: one stage or two, over no items, a few, or many. */
  private pipeline(scope: Scope): Statement {
    const name = this.fresh("m");
    const size = this.chance(0.15) ? this.count(6, 10) : this.count(0, 3);
    const items = Array.from({ length: size }, (_, index) => `${name}-${index}`);
    const first = pick(this.random, ["map", "pmap", "filter", "reduce"] as const);
    const stages: Stage[] = [this.stage(first, scope)];
    if (first !== "reduce" && this.chance(0.35))
      stages.push(this.stage(pick(this.random, ["map", "pmap", "filter", "reduce"] as const), scope));
    // A `reduce` over no items is null; after a `filter` its list may be empty.
    const last = stages.at(-1)!.stage;
    const mayBeNull = last === "reduce" && (size === 0 || stages.length > 1);
    (mayBeNull ? scope.quiet : scope.values).push(name);
    return { kind: "pipeline", name, items, stages };
  }

  private stage(stage: Stage["stage"], scope: Scope): Stage {
    const head = this.site();
    if (stage !== "reduce") return { stage, prompt: { head, names: [...scope.unique, "item"] } };
    const accumulator = this.fresh("a");
    const element = this.fresh("x");
    return { stage, accumulator, element, prompt: { head, names: [...scope.unique, element, accumulator] } };
  }

  private call(scope: Scope): Statement {
    const block = this.block();
    const name = this.chance(0.5) ? this.fresh("c") : undefined;
    if (name !== undefined) bind(scope, name);
    return {
      kind: "call",
      block: block.name,
      argument: { head: `A${++this.sites}`, names: [...scope.unique] },
      ...(name === undefined ? {} : { name }),
      ...(block.kind === "recursive" ? { depth: this.count(0, 2) } : {}),
    };
  }

  /** A block of a session or two over its parameter, or a recursive one; a new one, or one already written. */
  private block(): Block {
    if (this.blocks.length > 0 && this.chance(0.5)) return pick(this.random, this.blocks);
    const parameter = this.fresh("q");
    const name = this.fresh("b");
    if (this.chance(0.3)) {
      const depth = this.fresh("d");
      const below = this.fresh("r");
      const block: Block = {
        kind: "recursive",
        name,
        parameter,
        depth,
        below,
        step: { head: this.site(), names: [parameter, depth, below] },
        base: { head: this.site(), names: [parameter, depth] },
      };
      this.blocks.push(block);
      return block;
    }
    const result = this.fresh("r");
    const scope: Scope = { ...topScope(), unique: [parameter] };
    const body: Statement[] = [];
    if (this.chance(0.5)) body.push({ kind: "say", prompt: this.template(this.site(), scope) });
    body.push({ kind: "let", name: result, prompt: this.template(this.site(), scope) });
    const block: Block = { kind: "plain", name, parameter, body, result };
    this.blocks.push(block);
    return block;
  }
}

/** The outer `let`s a loop variable or a `catch as` may shadow: not one that is itself a loop variable here. */
function shadowableIn(scope: Scope): string[] {
  return scope.values.filter((name) => name.startsWith("v") && !scope.unique.includes(name));
}

function copy(scope: Scope): Scope {
  return { ...scope, values: [...scope.values], mutable: [...scope.mutable], quiet: [...scope.quiet] };
}

/** A new `let` (or call result) in `scope`: read from now on, and reassignable outside a branch. */
function bind(scope: Scope, name: string): void {
  scope.values.push(name);
  if (!scope.inBranch) scope.mutable.push(name);
}

/**
 * The scope of a `for` item's body. A `parallel for` item is a branch: it reads the bindings around
 * it and reassigns none of them. The item shadows an outer binding of its name: nothing reassigns that.
 */
function itemScope(scope: Scope, item: string, parallel: boolean): Scope {
  return {
    ...scope,
    unique: [...scope.unique, item],
    inBranch: scope.inBranch || parallel,
    inLoop: !parallel,
    mutable: parallel ? [] : scope.mutable.filter((name) => name !== item),
  };
}

// ---------------------------------------------------------------- writing

function text(template: Template): string {
  return [template.head, ...template.names.map((name) => `{${name}}`)].join(" ");
}

const quoted = (items: readonly string[]): string => `[${items.map((item) => `"${item}"`).join(", ")}]`;

/** Writes programs' lines, and where each statement that can raise stands. */
class Writer {
  readonly out: string[] = [];
  readonly positions = new Map<Statement, Position>();

  /** A line at `depth`; `raising` (with the text before its `session` or `throw`) is recorded where it stands. */
  private line(depth: number, text: string, raising?: { statement: Statement; before: string }): void {
    if (raising !== undefined)
      this.positions.set(raising.statement, {
        line: this.out.length + 1,
        column: depth * 2 + raising.before.length + 1,
      });
    this.out.push(`${"  ".repeat(depth)}${text}`);
  }

  block(block: Block): void {
    const line = (depth: number, text: string): void => this.line(depth, text);
    if (block.kind === "plain") {
      line(0, `block ${block.name}(${block.parameter}):`);
      this.statements(block.body, 1);
      line(1, `output ${block.result}`);
    } else {
      line(0, `block ${block.name}(${block.parameter}, ${block.depth}):`);
      line(1, `if ${block.depth} > 0:`);
      line(2, `let ${block.below} = do ${block.name}(${block.parameter}, ${block.depth} - 1)`);
      line(2, `output session "${text(block.step)}"`);
      line(1, `output session "${text(block.base)}"`);
    }
    this.out.push("");
  }

  statements(statements: readonly Statement[], depth: number): void {
    const line = (text: string, extra = 0): void => this.line(depth + extra, text);
    for (const statement of statements) {
      switch (statement.kind) {
        case "let":
          line(`let ${statement.name} = session "${text(statement.prompt)}"`);
          break;
        case "assign":
          line(`${statement.name} = session "${text(statement.prompt)}"`);
          break;
        case "say":
          line(`session "${text(statement.prompt)}"`);
          break;
        case "fail":
          this.line(depth, `session "${text(statement.prompt)}"`, { statement, before: "" });
          break;
        case "retried": {
          const before = statement.name === undefined ? "" : `let ${statement.name} = `;
          this.line(depth, `${before}session "${text(statement.prompt)}"`, { statement, before });
          line(`retry: ${statement.retries}`, 1);
          break;
        }
        case "throw":
          this.line(depth, `throw "${statement.message}"`, { statement, before: "" });
          break;
        case "repeat":
          line(`repeat ${statement.count} as ${statement.index}:`);
          this.statements(statement.body, depth + 1);
          break;
        case "for":
          line(`${statement.parallel ? "parallel for" : "for"} ${statement.item} in ${quoted(statement.items)}:`);
          this.statements(statement.body, depth + 1);
          break;
        case "loop": {
          const judged = statement.judged;
          const condition = judged === undefined ? "" : ` ${judged.mode} **${text(judged.condition)}**`;
          line(`loop${condition} (max: ${statement.max}) as ${statement.index}:`);
          this.statements(statement.body, depth + 1);
          break;
        }
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
          this.statements([statement.loop], depth);
          break;
        case "append":
          line(`${statement.name} = ${statement.name} + [session "${text(statement.prompt)}"]`);
          break;
        case "pipeline":
          statement.stages.forEach((stage, index) => {
            const head = stage.stage === "reduce" ? `reduce(${stage.accumulator}, ${stage.element})` : stage.stage;
            line(index === 0 ? `let ${statement.name} = ${quoted(statement.items)} | ${head}:` : `| ${head}:`);
            line(`session "${text(stage.prompt)}"`, 1);
          });
          break;
        case "jump":
          line(statement.jump);
          break;
        case "if":
          line(`if **${text(statement.condition)}**:`);
          this.statements(statement.then, depth + 1);
          if (statement.otherwise !== undefined) {
            line("else:");
            this.statements(statement.otherwise, depth + 1);
          }
          break;
        case "try":
          line("try:");
          this.statements(statement.body, depth + 1);
          line(statement.binding === undefined ? "catch:" : `catch as ${statement.binding}:`);
          this.statements(statement.recover, depth + 1);
          if (statement.always !== undefined) {
            line("finally:");
            this.statements(statement.always, depth + 1);
          }
          break;
        case "valued": {
          // The construct's first line, bound: `let name = for x in [...]:`.
          const start = this.out.length;
          this.statements([statement.construct], depth);
          this.out[start] = `${"  ".repeat(depth)}let ${statement.name} = ${this.out[start]!.trimStart()}`;
          break;
        }
        case "call": {
          const depthArgument = statement.depth === undefined ? "" : `, ${statement.depth}`;
          const call = `do ${statement.block}("${text(statement.argument)}"${depthArgument})`;
          line(statement.name === undefined ? call : `let ${statement.name} = ${call}`);
          break;
        }
      }
    }
  }
}

/** The program of `seed`, with what its run must do. */
export function runnableProgram(seed: number, length = 6): RunnableProgram {
  const generator = new Generator(seededRandom(seed));
  const scope = topScope();
  const main = generator.sequence(0, scope, length, scope);
  const outputs = [...scope.values, ...scope.quiet];

  const writer = new Writer();
  for (const block of generator.blocks) writer.block(block);
  writer.statements(main, 0);
  for (const name of outputs) writer.out.push(`output o${name} = ${name}`);

  const file = `generated-${seed}.prose`;
  const blocks = new Map(generator.blocks.map((block) => [block.name, block]));
  const reference = new Reference({ file, blocks, positions: writer.positions });
  const env = new Map<string, Value>();
  const parts: Order[] = [];
  reference.run(main, env, parts);
  return {
    seed,
    file,
    source: `${writer.out.join("\n")}\n`,
    expected: {
      sessions: reference.sessions,
      order: { kind: "sequence", parts },
      judgments: reference.judgments,
      outputs: Object.fromEntries(outputs.map((name) => [`o${name}`, env.get(name)!])),
    },
  };
}
