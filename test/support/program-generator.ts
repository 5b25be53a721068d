/**
 * A grammar-aware generator of `.prose` programs for the soundness property: from a seed, a program
 * that uses every construct of the language (DIALECT.md), nested, plus a second local program it
 * `use`s. Most of what it writes is valid; some of it is not on purpose (names used before they are
 * bound, a `const` reassigned, wrong argument counts), since the property must hold for everything
 * `check` lets through, not only for what a careful author writes.
 */
import { pick, seededRandom } from "./random.js";

export interface GeneratedProgram {
  /** File name → source; `main.prose` first, then the program it uses. */
  readonly files: Readonly<Record<string, string>>;
}

const words = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "notes",
  "draft",
  "plan",
  "result",
  "items",
  "score",
  "topic",
  "summary",
];
const agents = ["writer", "critic", "scout"];

/** A construct a jump may leave: a block call, a sequential loop, a pipeline item, a parallel item or branch. */
type JumpScope = "block" | "loop" | "item" | "parallel-item" | "branch";

class Writer {
  readonly lines: string[] = [];
  /** Names bound so far (all scopes: flat names are what programs rely on). */
  readonly names: string[] = [];
  /** `const` names: reassigning one is P010, which only a few programs should try. */
  readonly constants = new Set<string>();
  readonly blocks: Array<{ readonly name: string; readonly params: number }> = [];
  /** What a `return`, `break` or `continue` written here would leave, innermost last (DIALECT.md). */
  readonly jumpScopes: JumpScope[] = [];
  private counter = 0;

  constructor(
    readonly random: () => number,
    readonly helper:
      { readonly alias: string; readonly inputs: readonly string[]; readonly outputs: readonly string[] } | undefined,
  ) {}

  chance(p: number): boolean {
    return this.random() < p;
  }

  /**
   * A new name. Its number is written twice, so two names are never one edit apart: a placeholder of
   * a name out of scope is a template slot (P002), not a typo of another (P039).
   */
  fresh(): string {
    const number = ++this.counter;
    return `${pick(this.random, words)}${this.chance(0.3) ? "-" : ""}${number}${number}`;
  }

  name(): string {
    // Now and then a name nobody bound: `check` must reject it (P001), not crash.
    if (this.chance(0.005)) return "nowhere";
    if (this.names.length === 0) return `"${pick(this.random, words)}"`;
    return pick(this.random, this.names);
  }

  emit(depth: number, text: string): void {
    this.lines.push(`${"  ".repeat(depth)}${text}`);
  }

  /** A string literal: plain, with escapes, interpolating bound names, or triple-quoted. */
  string(depth: number): string {
    const name = this.names.length > 0 ? pick(this.random, this.names) : undefined;
    switch (Math.floor(this.random() * 6)) {
      case 0:
        return `"Work on ${pick(this.random, words)}"`;
      case 1:
        return name ? `"Use {${name}} and {not bound}"` : `"Plain text"`;
      case 2:
        return `"Quote \\" tab \\t brace \\{ x \\} back \\\\"`;
      case 3:
        return name ? `"Field {${name}.key} item {${name}[0]}"` : `"Nothing"`;
      case 4:
        // A raw string over several lines: its lines are content, at any indentation.
        return `"""\n${"  ".repeat(depth + 1)}Raw {${name ?? "x"}} with "quotes" and \`ticks\` and \${dollar}\n${"  ".repeat(depth + 1)}# not a comment\n${"  ".repeat(depth)}"""`;
      default:
        return `"Text with \`code\` and */ and \${x}"`;
    }
  }

  discretion(): string {
    const name = this.names.length > 0 && this.chance(0.4) ? ` about {${pick(this.random, this.names)}}` : "";
    return `**the ${pick(this.random, words)} is ready${name}**`;
  }

  /** A value expression, `budget` bounding how much it may nest. */
  expression(depth: number, budget: number): string {
    if (budget <= 0) return this.atom();
    switch (Math.floor(this.random() * 13)) {
      case 0:
      case 1:
        return this.atom();
      case 2:
        return `${this.expression(depth, budget - 1)} + ${this.expression(depth, budget - 1)}`;
      case 3:
        return `${this.name()} ${pick(this.random, ["-", "*", "/"])} ${Math.floor(this.random() * 5) + 1}`;
      case 4:
        return `[${Array.from({ length: Math.floor(this.random() * 3) }, () => this.expression(depth, budget - 1)).join(", ")}]`;
      case 5:
        return this.chance(0.6) || this.names.length === 0
          ? `{ key: ${this.expression(depth, budget - 1)}, "quoted key": ${this.atom()} }`
          : this.shorthandRecord();
      case 6:
        return `${this.name()}${pick(this.random, [".key", "[0]", "[1].key", ".items[0]"])}`;
      case 7:
        return `(${this.condition(budget - 1)})`;
      case 8:
        return `session ${this.string(depth)}`;
      case 9:
        return this.blocks.length > 0 ? this.call() : `session "fallback"`;
      case 10:
        return `session ${this.string(depth)} -> session "then refine"`;
      case 11:
        return this.helper && this.chance(0.5) ? this.programCall() : this.atom();
      default:
        return `not ${this.name()}`;
    }
  }

  /**
   * A record of shorthand entries, `{ name }` and the path form `{ name.key }` (key `key`), each key
   * once: a key given twice is P061.
   */
  shorthandRecord(): string {
    const names = [...new Set([pick(this.random, this.names), pick(this.random, this.names)])];
    const path = this.chance(0.5) ? [`${pick(this.random, this.names)}.key`] : [];
    return `{ ${[...names, ...path].join(", ")} }`;
  }

  atom(): string {
    switch (Math.floor(this.random() * 6)) {
      case 0:
        return String(Math.floor(this.random() * 10));
      case 1:
        // `[]` as well: an empty list reads `[]` in a prompt, and loops over it run no item.
        return pick(this.random, ["true", "false", "null", "2.5", "[]"]);
      case 2:
        return `"${pick(this.random, words)}"`;
      default:
        return this.name();
    }
  }

  condition(budget: number): string {
    switch (Math.floor(this.random() * 6)) {
      case 0:
        return this.discretion();
      case 1:
        return `${this.name()} ${pick(this.random, ["==", "!=", "<", "<=", ">", ">=", "is"])} ${this.atom()}`;
      case 2:
        return `${this.discretion()} ${pick(this.random, ["and", "or"])} ${this.name()} > 1`;
      case 3:
        return `not ${this.discretion()}`;
      case 4:
        return budget > 0 ? `${this.condition(budget - 1)} or ${this.condition(budget - 1)}` : this.name();
      default:
        return this.name();
    }
  }

  call(): string {
    const block = pick(this.random, this.blocks);
    // Usually the right number of arguments; sometimes one missing or one extra (P006).
    const count = Math.max(0, block.params + (this.chance(0.15) ? pick(this.random, [-1, 1]) : 0));
    return `do ${block.name}(${Array.from({ length: count }, () => this.atom()).join(", ")})`;
  }

  programCall(): string {
    const helper = this.helper!;
    const inputs = helper.inputs.filter(() => !this.chance(0.03));
    return `${helper.alias}(${inputs.map((input) => `${input}: ${this.atom()}`).join(", ")})`;
  }

  /**
   * A session with properties on the lines below it. A `filter:` stage's verdict (`verdict`) is read
   * as keep or drop: its `returns:`, when it has one, is `boolean` (any other is P049).
   */
  session(depth: number, prefix: string, verdict = false): void {
    const withAgent = this.chance(0.3);
    const head = withAgent ? `session: ${pick(this.random, agents)}` : `session ${this.string(depth)}`;
    this.emit(depth, `${prefix}${head}`);
    if (withAgent) this.emit(depth + 1, `prompt: ${this.string(depth + 1)}`);
    if (this.chance(0.4) && this.names.length > 0)
      this.emit(
        depth + 1,
        `context: ${pick(this.random, [this.name(), `[${this.name()}, ${this.name()}]`, `{ ${this.name()} }`])}`,
      );
    if (this.chance(0.2)) this.emit(depth + 1, `model: ${pick(this.random, ["sonnet", "haiku", "opus"])}`);
    if (this.chance(0.15)) this.emit(depth + 1, `retry: ${Math.floor(this.random() * 2) + 1}`);
    if (this.chance(verdict ? 0.5 : 0.2)) this.emit(depth + 1, `returns: ${verdict ? "boolean" : this.resultType(2)}`);
  }

  /** A `returns:` type of the subset (DIALECT.md, "Typed results"); records name `key` and `items`, which reads pick. */
  resultType(budget: number): string {
    const choice = Math.floor(this.random() * (budget > 0 ? 8 : 4));
    switch (choice) {
      case 0:
        return pick(this.random, ["string", "number", "boolean"]);
      case 1:
        return '"low" | "high"';
      case 2:
        return "string | null";
      case 3:
        return pick(this.random, ["string[]", "[number]"]);
      case 4:
      case 5:
        return `{ key: ${this.resultType(budget - 1)}, items?: ${this.resultType(budget - 1)}[], "quoted key": string }`;
      case 6:
        return `[${this.resultType(budget - 1)}]`;
      default:
        return `(${this.resultType(budget - 1)} | null)[]`;
    }
  }

  /** `body` inside a construct that a jump may leave (a loop, an item, a branch, a block). */
  within(scope: JumpScope, write: () => void): void {
    this.jumpScopes.push(scope);
    write();
    this.jumpScopes.pop();
  }

  /** The jumps that may stand here: `return` unless a branch or parallel item is in the way, `break` in a loop, `continue` in a loop or item. */
  allowedJumps(): string[] {
    const innermost = [...this.jumpScopes].reverse();
    const toBlock = innermost.includes("block") ? innermost.slice(0, innermost.indexOf("block")) : innermost;
    const allowed: string[] = [];
    if (!toBlock.includes("branch") && !toBlock.includes("parallel-item")) allowed.push("return");
    if (innermost[0] === "loop") allowed.push("break", "continue");
    else if (innermost[0] === "item" || innermost[0] === "parallel-item") allowed.push("continue");
    return allowed;
  }

  /** A jump, usually behind a condition so the rest of its body still runs sometimes; rarely one that cannot go where it says. */
  jump(depth: number): void {
    const allowed = this.allowedJumps();
    if (allowed.length === 0 && !this.chance(0.03)) {
      this.session(depth, "");
      return;
    }
    const keyword = pick(
      this.random,
      allowed.length === 0 || this.chance(0.03) ? ["return", "break", "continue"] : allowed,
    );
    if (this.chance(0.65)) {
      this.emit(depth, `if ${this.condition(0)}:`);
      this.emit(depth + 1, keyword);
    } else {
      this.emit(depth, keyword);
      this.unreachable(depth);
    }
  }

  /**
   * Often, statements after an unconditional `throw`, `return`, `break` or `continue` in the same
   * body: code that never runs (warning P040) must still compile, type-check and leave the rest alone.
   */
  unreachable(depth: number): void {
    if (!this.chance(0.7)) return;
    // What dead code binds is not read later: in a pipeline item it would not even be in scope.
    const outer = this.names.length;
    const count = 1 + Math.floor(this.random() * 2);
    for (let index = 0; index < count; index++) {
      if (this.chance(0.3)) {
        // A loop after the jump: its iteration bookkeeping sits in code TypeScript knows never runs.
        this.emit(depth, `for ${this.fresh()} in ["a"]:`);
        this.session(depth + 1, "");
      } else this.statement(depth, 0);
    }
    this.names.length = outer;
  }

  /** `do:` whose body raises, then goes on (the generated-program shape of issue 40, item 6). */
  raisingDo(depth: number, prefix: string): void {
    this.emit(depth, `${prefix}do:`);
    if (this.chance(0.5)) this.session(depth + 1, "");
    this.emit(depth + 1, `throw ${this.string(depth + 1)}`);
    this.unreachable(depth + 1);
  }

  /** A body of `count` statements at `depth`; `budget` bounds nesting. */
  body(depth: number, budget: number, count: number): void {
    for (let index = 0; index < count; index++) this.statement(depth, budget);
  }

  bind(): { prefix: string; name: string } {
    const reusable = this.names.filter((name) => !this.constants.has(name) || this.chance(0.02));
    const reuse = reusable.length > 0 && this.chance(0.25);
    const name = reuse ? pick(this.random, reusable) : this.fresh();
    const keyword = reuse ? "" : pick(this.random, ["let ", "let ", "const ", ""]);
    if (keyword === "const ") this.constants.add(name);
    return { prefix: `${keyword}${name} = `, name };
  }

  /**
   * A nested body. Names bound in `if`/`choice` branches, loop bodies, `try`/`catch` and `do:` stay
   * visible after it (flat names); those of a block, `parallel for` or pipeline stage do not.
   */
  nestedBody(depth: number, budget: number, count: number, flat = true): void {
    const outer = this.names.length;
    this.body(depth, budget, count);
    if (!flat) this.names.length = outer;
  }

  statement(depth: number, budget: number): void {
    const kinds = budget > 0 ? 23 : 8;
    switch (Math.floor(this.random() * kinds)) {
      case 0:
      case 1: {
        const { prefix, name } = this.bind();
        this.emit(depth, `${prefix}${this.expression(depth, 2)}`);
        this.names.push(name);
        return;
      }
      case 2: {
        const { prefix, name } = this.bind();
        this.session(depth, prefix);
        this.names.push(name);
        return;
      }
      case 3:
        this.session(depth, "");
        return;
      case 4:
        this.emit(depth, `output ${this.fresh()} = ${this.expression(depth, 1)}`);
        return;
      case 5:
        // Rarely: a program that raises its own error ends there, and the rest of it is never run.
        if (this.chance(0.15)) {
          this.emit(depth, `throw ${this.chance(0.5) ? this.string(depth) : ""}`.trimEnd());
          this.unreachable(depth);
        } else if (this.chance(0.25))
          this.emit(
            depth,
            `assert ${this.condition(0)}:\n${"  ".repeat(depth + 1)}"${pick(this.random, words)} must hold"`,
          );
        else this.session(depth, "");
        return;
      case 6: {
        if (this.chance(0.3)) {
          // `let { a, b } = { a: ..., b: ... }`: each name bound to the field of that name.
          const names = [this.fresh(), ...(this.chance(0.5) ? [this.fresh()] : [])];
          const fields = names.map((field) => `${field}: ${this.expression(depth, 1)}`);
          const keyword = pick(this.random, ["let", "const"]);
          if (keyword === "const") for (const field of names) this.constants.add(field);
          this.emit(depth, `${keyword} { ${names.join(", ")} } = { ${fields.join(", ")} }`);
          this.names.push(...names);
          return;
        }
        const { prefix, name } = this.bind();
        this.emit(depth, `${prefix}${this.expression(depth, 1)}`);
        this.names.push(name);
        return;
      }
      case 7:
        this.emit(depth, this.blocks.length > 0 && this.chance(0.6) ? this.call() : `session "simple"`);
        return;
      case 8: {
        this.emit(depth, `if ${this.condition(1)}:`);
        this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2));
        if (this.chance(0.5)) {
          this.emit(depth, `elif ${this.condition(1)}:`);
          this.body(depth + 1, budget - 1, 1);
        }
        if (this.chance(0.5)) {
          this.emit(depth, "else:");
          this.body(depth + 1, budget - 1, 1);
        }
        return;
      }
      case 9: {
        const labels = Array.from(
          { length: 2 + Math.floor(this.random() * 2) },
          (_, index) => `"Option ${index}${this.chance(0.2) ? " `quoted`" : ""}"`,
        );
        this.emit(depth, `choice ${this.discretion()}:`);
        // Often a name most options bind (definite assignment: bound after the choice when all do).
        const shared = this.chance(0.4) ? this.fresh() : undefined;
        // Sometimes every option raises: nothing after the `choice` runs (issue 40, item 6).
        const allRaise = budget > 1 && this.chance(0.12);
        for (const label of labels) {
          this.emit(depth + 1, `option ${label}:`);
          if (shared && this.chance(0.85)) this.emit(depth + 2, `${shared} = ${this.expression(depth + 2, 1)}`);
          if (allRaise && this.chance(0.5)) this.emit(depth + 2, `throw ${this.string(depth + 2)}`);
          else if (allRaise || (budget > 1 && this.chance(0.15))) this.raisingDo(depth + 2, "");
          else this.body(depth + 2, budget - 1, 1);
        }
        if (shared) this.names.push(shared);
        return;
      }
      case 10: {
        const { prefix, name } = this.chance(0.5) ? this.bind() : { prefix: "", name: undefined };
        const modifiers = pick(this.random, [
          "",
          ' ("first")',
          ' ("all")',
          ' ("any", count: 1)',
          ' (on-fail: "continue")',
          ' (on-fail: "ignore")',
        ]);
        this.emit(depth, `${prefix}parallel${modifiers}:`);
        const branches = 2 + Math.floor(this.random() * 2);
        // Branches run side by side: a name one binds is visible after the block, not in a sibling.
        const outer = this.names.length;
        const bound: string[] = [];
        this.jumpScopes.push("branch");
        for (let branch = 0; branch < branches; branch++) {
          this.names.length = outer;
          if (this.chance(0.6)) {
            const { prefix: branchPrefix, name: branchName } = this.bind();
            if (this.chance(0.25)) {
              this.emit(depth + 1, `${branchPrefix}try:`);
              this.body(depth + 2, budget - 2, 1);
              this.emit(depth + 1, "catch:");
              this.body(depth + 2, budget - 2, 1);
              // A branch a race or a failed sibling cancels still runs its `finally` (DIALECT.md).
              if (this.chance(0.5)) {
                this.emit(depth + 1, "finally:");
                this.body(depth + 2, budget - 2, 1);
              }
            } else {
              this.session(depth + 1, branchPrefix);
            }
            bound.push(branchName);
          } else if (this.chance(0.5)) {
            this.emit(depth + 1, "do:");
            this.body(depth + 2, budget - 1, 1);
          } else {
            this.session(depth + 1, "");
          }
        }
        this.jumpScopes.pop();
        this.names.length = outer;
        this.names.push(...bound);
        if (name) this.names.push(name);
        return;
      }
      case 11: {
        const index = this.chance(0.3) ? ` as ${this.fresh()}` : "";
        this.emit(depth, `repeat ${1 + Math.floor(this.random() * 2)}${index}:`);
        if (index) this.names.push(index.slice(4));
        this.within("loop", () => this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2)));
        // The index is the loop's own; what the body binds stays visible after it.
        if (index) this.names.splice(this.names.lastIndexOf(index.slice(4)), 1);
        return;
      }
      case 12: {
        const item = this.fresh();
        const index = this.chance(0.3) ? this.fresh() : undefined;
        const { prefix, name } = this.chance(0.3) ? this.bind() : { prefix: "", name: undefined };
        const header = `${prefix}${this.chance(0.4) ? "parallel " : ""}for ${item}${index ? `, ${index}` : ""} in ${pick(this.random, ['["a", "b"]', "[1, 2, 3]", this.name()])}:`;
        this.emit(depth, header);
        const parallel = header.includes("parallel for");
        const outer = this.names.length;
        this.names.push(item, ...(index ? [index] : []));
        this.within(parallel ? "parallel-item" : "loop", () =>
          this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2)),
        );
        if (parallel) this.names.length = outer;
        // The item and its index are the loop's own; what a sequential body binds stays visible after it.
        else for (const own of [item, index]) if (own) this.names.splice(this.names.lastIndexOf(own), 1);
        if (name) this.names.push(name);
        return;
      }
      case 13: {
        const mode = pick(this.random, ["loop until", "loop while", "loop"]);
        const condition = mode === "loop" ? "" : ` ${this.condition(1)}`;
        const index = this.chance(0.3) ? this.fresh() : undefined;
        this.emit(
          depth,
          `${mode}${condition} (max: ${1 + Math.floor(this.random() * 2)})${index ? ` as ${index}` : ""}:`,
        );
        if (index) this.names.push(index);
        this.within("loop", () => this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2)));
        if (index) this.names.splice(this.names.lastIndexOf(index), 1);
        return;
      }
      case 14: {
        const { prefix, name } = this.chance(0.4) ? this.bind() : { prefix: "", name: undefined };
        this.emit(depth, `${prefix}try:`);
        this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2));
        const handler = this.chance(0.8);
        if (handler) {
          const error = this.chance(0.5) ? this.fresh() : undefined;
          this.emit(depth, error ? `catch as ${error}:` : "catch:");
          if (error) this.names.push(error);
          this.body(depth + 1, budget - 1, 1);
          // The error is the handler's own.
          if (error) this.names.splice(this.names.lastIndexOf(error), 1);
          if (this.chance(0.2)) this.emit(depth + 1, "throw");
        }
        if (this.chance(0.3)) {
          this.emit(depth, "finally:");
          this.body(depth + 1, budget - 1, 1);
        }
        if (name) this.names.push(name);
        return;
      }
      case 15: {
        // Blocks are defined at the top level, where a later call finds them.
        if (depth > 0) {
          this.session(depth, "");
          return;
        }
        const name = `step-${++this.counter}`;
        const params = Array.from({ length: Math.floor(this.random() * 3) }, () => this.fresh());
        const modifiers = this.chance(0.3) ? " (max_depth: 3)" : "";
        this.emit(depth, `block ${name}(${params.join(", ")})${modifiers}:`);
        const outer = this.names.length;
        this.names.push(...params);
        this.within("block", () => this.nestedBody(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2)));
        if (this.chance(0.6))
          this.emit(
            depth + 1,
            `output ${this.chance(0.5) ? `${this.fresh()} = ` : ""}${this.expression(depth + 1, 1)}`,
          );
        this.names.length = outer;
        // Called only after it is defined, so no block calls itself without a bound.
        this.blocks.push({ name, params: params.length });
        return;
      }
      case 16: {
        const { prefix, name } = this.bind();
        if (this.chance(0.2)) this.raisingDo(depth, prefix);
        else {
          this.emit(depth, `${prefix}do:`);
          this.body(depth + 1, budget - 1, 1 + Math.floor(this.random() * 2));
        }
        this.names.push(name);
        return;
      }
      case 17: {
        const { prefix, name } = this.bind();
        const source = pick(this.random, ['["a", "b", "c"]', this.name()]);
        const stages = 1 + Math.floor(this.random() * 2);
        for (let stage = 0; stage < stages; stage++) {
          const operator = pick(this.random, ["map", "filter", "pmap", "reduce(acc, each)"]);
          this.emit(depth, stage === 0 ? `${prefix}${source} | ${operator}:` : `| ${operator}:`);
          const stageNames = operator.startsWith("reduce") ? ["acc", "each"] : ["item"];
          this.names.push(...stageNames);
          if (this.chance(0.3)) {
            this.emit(depth + 1, `if ${this.condition(0)}:`);
            this.within(operator === "pmap" ? "parallel-item" : "item", () => this.jump(depth + 2));
          }
          if (this.chance(0.5)) this.session(depth + 1, "", operator === "filter");
          else this.emit(depth + 1, pick(this.random, stageNames));
          this.names.splice(this.names.length - stageNames.length, stageNames.length);
        }
        this.names.push(name);
        return;
      }
      case 18: {
        const name = this.fresh();
        this.emit(depth, `input ${name}: ${pick(this.random, [`"What ${name} is"`, this.discretion()])}`);
        this.names.push(name);
        return;
      }
      case 19: {
        if (!this.helper) {
          this.session(depth, "");
          return;
        }
        const { prefix, name } = this.bind();
        this.emit(depth, `${prefix}${this.programCall()}`);
        this.names.push(name);
        if (this.helper.outputs.length > 0 && this.chance(0.7))
          this.emit(depth, `session "Use {${name}.${pick(this.random, this.helper.outputs)}}"`);
        return;
      }
      case 20: {
        const { prefix, name } = this.bind();
        this.emit(depth, `${prefix}resume: ${agents[2]}`);
        this.emit(depth + 1, `prompt: "Carry on"`);
        this.names.push(name);
        return;
      }
      case 22:
        this.jump(depth);
        return;
      default: {
        const { prefix, name } = this.bind();
        this.emit(depth, `${prefix}${this.discretion()}`);
        this.names.push(name);
      }
    }
  }
}

/** The top of a program: its inputs (parameters) and agents. */
function header(writer: Writer, inputs: readonly string[]): void {
  for (const input of inputs) {
    writer.emit(0, `input ${input}: "The ${input}"`);
    writer.names.push(input);
  }
  writer.emit(0, "");
  writer.emit(0, "agent writer:");
  writer.emit(1, "model: sonnet");
  writer.emit(1, `prompt: "You write about {${inputs[0] ?? "nothing"}}."`);
  writer.emit(0, "agent critic:");
  writer.emit(1, "model: haiku");
  writer.emit(1, 'prompt: "You criticise."');
  writer.emit(1, "permissions:");
  writer.emit(2, 'read: ["docs/**"]');
  writer.emit(2, "bash: deny");
  writer.emit(0, "agent scout:");
  writer.emit(1, "persist: true");
  writer.emit(1, 'prompt: "You remember."');
  writer.emit(0, "");
}

/** The program for `seed`: a helper program and a main program that uses it. */
export function generateProgram(seed: number, size = 8, nesting = 3): GeneratedProgram {
  const random = seededRandom(seed);
  const helperInputs = ["topic", ...(random() < 0.5 ? ["depth"] : [])];
  const helper = new Writer(random, undefined);
  header(helper, helperInputs);
  helper.body(0, 1, 2);
  const helperOutputs = random() < 0.8 ? ["summary"] : [];
  for (const output of helperOutputs) helper.emit(0, `output ${output} = session "Summarise {topic}"`);

  const main = new Writer(random, { alias: "helper", inputs: helperInputs, outputs: helperOutputs });
  main.emit(0, `use "./helper.prose" as helper`);
  header(main, random() < 0.5 ? ["subject"] : []);
  main.body(0, nesting, size);
  return { files: { "main.prose": `${main.lines.join("\n")}\n`, "helper.prose": `${helper.lines.join("\n")}\n` } };
}
