/**
 * From an analysed program to its control-flow graph (`flow-graph.ts`): one visit per construct
 * that decides what runs next, everything else visited through its children in source order (so a
 * session nested in a binding, an argument or a context is still drawn, where it runs).
 *
 * Each node carries the static cost bound of what it stands for, from the same estimator as
 * `prosec cost` (`2-analyze/cost`), and a weight for the critical paths (`critical.ts`): the calls
 * it makes one after another, times the iterations of the loops around it.
 */
import type * as ast from "../ast.js";
import { childrenOf } from "../walk.js";
import { DEFAULT_MODEL, formatCount, Poly, type Analysis, type CostEstimator } from "../phases/2-analyze/index.js";
import type { ProgramCost } from "../../runtime/cost.js";
import { FlowCanvas, type Exit } from "./flow-canvas.js";
import type { FlowGraph } from "./flow-graph.js";
import { excerpt, quoted } from "./labels.js";

export interface FlowOptions {
  /** The bound of a program used under this alias, when known. */
  readonly imported?: (alias: string) => ProgramCost | undefined;
}

export function buildFlow(
  analysis: Analysis,
  source: string,
  estimator: CostEstimator,
  options: FlowOptions = {},
): FlowGraph {
  return new FlowBuilder(analysis, source, estimator, options).build();
}

class FlowBuilder {
  private readonly canvas = new FlowCanvas();
  private readonly blockEntries = new Map<string, string>();
  private readonly programNodes = new Map<string, string>();
  private readonly calls: Array<{ from: string; block?: string; program?: string }> = [];
  private throws: string[] = [];
  private depth = 0;

  constructor(
    private readonly analysis: Analysis,
    private readonly source: string,
    private readonly estimator: CostEstimator,
    private readonly options: FlowOptions,
  ) {}

  build(): FlowGraph {
    const program = this.analysis.program;
    const total = this.estimator.cost(program, 0);
    const start = this.canvas.add("start", ["program"], null, total);
    this.canvas.draft(start).lines.push(`critical path ${formatCount(total.critical.toCount())}`);
    const exits = this.statements(program.body, [{ from: start }]);
    const end = this.canvas.add("end", ["end"], null);
    this.canvas.connect(exits, end);
    this.finishThrows(end);
    this.canvas.addRegion({ start, end });
    this.usedPrograms();
    this.blocks();
    for (const call of this.calls) {
      const target =
        call.block !== undefined ? this.blockEntries.get(call.block) : this.programNodes.get(call.program!);
      if (target !== undefined) this.canvas.edge(call.from, target, "call", "calls");
    }
    return this.canvas.finish();
  }

  // -------------------------------------------------------------------------------------------
  // Statements and expressions
  // -------------------------------------------------------------------------------------------

  private statements(list: readonly ast.Node[], entry: readonly Exit[]): Exit[] {
    return list.reduce<Exit[]>((exits, statement) => this.visit(statement, exits), [...entry]);
  }

  private visit(node: ast.Node, entry: readonly Exit[]): Exit[] {
    switch (node.kind) {
      case "Agent":
      case "Block":
      case "Use":
      case "Import":
      case "Recovered":
        return [...entry];
      case "Input":
        return this.input(node, entry);
      case "Session":
      case "Resume":
        return this.session(node, entry);
      case "Discretion":
        return this.canvas.step(
          "judgment",
          [`**${excerpt(node.text)}**`],
          node,
          entry,
          this.estimator.cost(node, this.depth),
        );
      case "If":
        return this.ifStatement(node, entry);
      case "Choice":
        return this.choice(node, entry);
      case "Parallel":
        return this.parallel(node, entry);
      case "Repeat":
        return this.loop(node, `repeat ${this.text(node.count)}`, this.estimator.number(node.count, node), true, entry);
      case "ForEach":
        return this.loop(
          node,
          `${node.parallel ? "parallel for" : "for"} ${node.item.name} in ${this.text(node.collection)}`,
          this.estimator.items(node.collection, node.collection),
          !node.parallel,
          this.visit(node.collection, entry),
        );
      case "Loop":
        return this.conditionalLoop(node, entry);
      case "Pipeline":
        return this.pipeline(node, entry);
      case "Try":
        return this.tryStatement(node, entry);
      case "DoCall":
        return this.call(node, this.text(node), { block: node.name.name }, entry);
      case "ProgramCall":
        return this.call(node, `${this.text(node)}`, { program: node.callee.name }, entry);
      case "Throw":
        return this.throwStatement(node, entry);
      case "Assert": {
        const exits = this.visit(node.test, entry);
        const id = this.canvas.add(
          this.decisionKind(node.test),
          [`assert ${this.text(node.test)}`],
          node,
          this.estimator.condition(node.test, this.depth),
        );
        this.canvas.connect(exits, id);
        return [{ from: id, label: "holds" }];
      }
      default:
        // Everything else runs its parts in source order.
        return childrenOf(node).reduce<Exit[]>((exits, child) => this.visit(child, exits), [...entry]);
    }
  }

  private input(node: ast.InputDeclaration, entry: readonly Exit[]): Exit[] {
    if (this.analysis.parameters.includes(node)) return [...entry];
    const question =
      node.prompt === null ? "" : `: ${excerpt(node.prompt.kind === "String" ? node.prompt.value : node.prompt.text)}`;
    return this.canvas.step("input", [`input ${node.name.name}${question}`], node, entry);
  }

  private session(node: ast.SessionExpression | ast.ResumeExpression, entry: readonly Exit[]): Exit[] {
    const agent = node.agent === null ? undefined : this.analysis.agents.get(node.agent.name);
    const property = (key: string): ast.Property | undefined =>
      node.properties.find((candidate) => candidate.key.name === key) ??
      agent?.properties.find((candidate) => candidate.key.name === key);
    const model = property("model")?.value;
    const modelName =
      model === undefined || model.kind === "PropertyBlock" ? DEFAULT_MODEL : this.text(model).replace(/^"|"$/g, "");
    const head =
      node.kind === "Resume"
        ? `resume: ${node.agent.name}`
        : `session${node.name === null ? "" : ` ${node.name.name}`}${node.agent === null ? "" : `: ${node.agent.name}`}`;
    const promptValue =
      node.kind === "Session" ? (node.prompt ?? property("prompt")?.value) : property("prompt")?.value;
    const prompt = promptValue?.kind === "String" ? [quoted(promptValue.value)] : [];
    return this.canvas.step(
      "session",
      [head, ...prompt, `${modelName} · line ${node.loc.start.line}`],
      node,
      entry,
      this.estimator.cost(node, this.depth),
    );
  }

  private ifStatement(node: ast.IfStatement, entry: readonly Exit[]): Exit[] {
    const exits: Exit[] = [];
    let next: Exit[] = [...entry];
    node.clauses.forEach((clause, index) => {
      const tested = this.visitInsideCondition(clause.test, next);
      const id = this.canvas.add(
        this.decisionKind(clause.test),
        [`${index === 0 ? "if" : "elif"} ${this.conditionText(clause.test)}`],
        clause,
        this.estimator.condition(clause.test, this.depth),
      );
      this.canvas.connect(tested, id);
      exits.push(...this.statements(clause.body, [{ from: id, label: "yes" }]));
      next = [{ from: id, label: "no" }];
    });
    exits.push(...(node.alternate === null ? next : this.statements(node.alternate, next)));
    return exits;
  }

  private choice(node: ast.ChoiceStatement, entry: readonly Exit[]): Exit[] {
    const id = this.canvas.add(
      "choice",
      [`choice **${excerpt(node.criteria.text)}**`],
      node,
      this.estimator.cost(node, this.depth),
    );
    this.canvas.setWeight(id, this.estimator.question("choice", node.criteria, 0, this.depth).critical);
    this.canvas.connect(entry, id);
    return node.options.flatMap((option) =>
      this.statements(option.body, [{ from: id, label: excerpt(option.label.value, 30) }]),
    );
  }

  private parallel(node: ast.ParallelExpression, entry: readonly Exit[]): Exit[] {
    const { join: strategy, count, onFail } = this.analysis.parallelPlans.get(node)!;
    const join = `${strategy}${count === undefined ? "" : ` ${count}`}`;
    const fork = this.canvas.add(
      "fork",
      [`parallel · ${join}`, `on-fail: ${excerpt(onFail, 30)}`],
      node,
      this.estimator.cost(node, this.depth),
    );
    this.canvas.setWeight(fork, Poly.zero);
    this.canvas.connect(entry, fork);
    const exits = node.branches.flatMap((branch) => this.visit(branch, [{ from: fork }]));
    const joined = this.canvas.add("join", [`join · ${join}`], null);
    this.canvas.connect(exits, joined);
    return [{ from: joined }];
  }

  private conditionalLoop(node: ast.LoopExpression, entry: readonly Exit[]): Exit[] {
    const max = node.modifiers.find((modifier) => modifier.key?.name === "max")?.value;
    const iterations = max === undefined ? Poly.infinite : this.estimator.number(max, node);
    const test = node.condition === null ? "" : ` ${node.condition.mode} ${this.conditionText(node.condition.test)}`;
    const bound = max === undefined ? " · no max" : ` · max ${this.text(max)}`;
    const condition = node.condition === null ? undefined : node.condition.test;
    return this.loop(node, `loop${test}${bound}`, iterations, true, entry, condition);
  }

  /** A loop head, its body in a cluster repeated back to the head, and the way out. */
  private loop(
    node: ast.RepeatExpression | ast.ForEachExpression | ast.LoopExpression | ast.PipeStage,
    head: string,
    iterations: Poly,
    sequential: boolean,
    entry: readonly Exit[],
    condition?: ast.Expression,
  ): Exit[] {
    const kind = condition !== undefined && this.decisionKind(condition) === "judgment" ? "judgment" : "loop";
    const id = this.canvas.add(
      "loop",
      [head, `≤ ${formatCount(iterations.toCount())} iterations`],
      node,
      this.estimator.cost(node, this.depth),
    );
    if (kind === "judgment") this.canvas.draft(id).kind = "judgment";
    this.canvas.setWeight(
      id,
      condition === undefined
        ? Poly.zero
        : this.estimator.condition(condition, this.depth).critical.times(this.canvas.multiplier).times(iterations),
    );
    this.canvas.connect(entry, id);
    const body = {
      cluster: this.canvas.addCluster("loop", sequential ? "each iteration" : "each branch, side by side"),
      multiplier: this.canvas.multiplier.times(sequential ? iterations : Poly.constant(1)),
    };
    const exits = this.canvas.within(body, () => this.statements(node.body, [{ from: id, label: "each" }]));
    for (const exit of exits) this.canvas.edge(exit.from, id, "repeat", exit.label ?? "next");
    return [{ from: id, label: "done", through: exits.flatMap((exit) => [exit.from, ...(exit.through ?? [])]) }];
  }

  private pipeline(node: ast.PipelineExpression, entry: readonly Exit[]): Exit[] {
    let exits = this.visit(node.source, entry);
    node.stages.forEach((stage, index) => {
      const items = this.estimator.items(index === 0 ? node.source : undefined, stage);
      exits = this.loop(stage, `| ${stage.operator}`, items, stage.operator !== "pmap", exits);
    });
    return exits;
  }

  private tryStatement(node: ast.TryExpression, entry: readonly Exit[]): Exit[] {
    const id = this.canvas.step("try", ["try"], node, entry, this.estimator.cost(node, this.depth))[0]!.from;
    this.canvas.setWeight(id, Poly.zero);
    const throwsBefore = this.throws;
    this.throws = [];
    const exits = this.statements(node.body, [{ from: id }]);
    const thrown = this.throws;
    this.throws = throwsBefore;
    if (node.handler !== null) {
      const name = node.handler.param === null ? "" : ` ${node.handler.param.name}`;
      const handler = this.canvas.add("catch", [`catch${name}`], node.handler);
      this.canvas.edge(id, handler, "flow", "error");
      for (const from of thrown) this.canvas.edge(from, handler, "flow", "throws");
      exits.push(...this.statements(node.handler.body, [{ from: handler }]));
    } else this.throws.push(...thrown);
    if (node.finalizer === null) return exits;
    const finalizer = this.canvas.add("finally", ["finally"], null);
    this.canvas.connect(exits, finalizer);
    return this.statements(node.finalizer, [{ from: finalizer }]);
  }

  private call(
    node: ast.DoCall | ast.ProgramCall,
    label: string,
    target: { block?: string; program?: string },
    entry: readonly Exit[],
  ): Exit[] {
    const argumentsDone = childrenOf(node).reduce<Exit[]>((exits, child) => this.visit(child, exits), [...entry]);
    const exits = this.canvas.step(
      "call",
      [excerpt(label)],
      node,
      argumentsDone,
      this.estimator.cost(node, this.depth),
    );
    this.calls.push({ from: exits[0]!.from, ...target });
    return exits;
  }

  private throwStatement(node: ast.ThrowStatement, entry: readonly Exit[]): Exit[] {
    const exits = node.message === null ? [...entry] : this.visit(node.message, entry);
    const message = node.message?.kind === "String" ? ` ${quoted(node.message.value)}` : "";
    const id = this.canvas.step("throw", [`throw${message}`], node, exits)[0]!.from;
    this.throws.push(id);
    return [];
  }

  private finishThrows(end: string): void {
    for (const from of this.throws) this.canvas.edge(from, end, "flow", "throws");
    this.throws = [];
  }

  // -------------------------------------------------------------------------------------------
  // Blocks and used programs: subgraphs
  // -------------------------------------------------------------------------------------------

  private blocks(): void {
    const blocks = [...this.analysis.blocks.values()].sort((a, b) => a.loc.start.offset - b.loc.start.offset);
    this.depth = 1;
    for (const block of blocks) {
      const cluster = this.canvas.addCluster("block", `block ${block.name.name}`);
      this.canvas.within({ cluster, multiplier: Poly.constant(1) }, () => {
        const params = block.params.map((param) => param.name).join(", ");
        const start = this.canvas.add("start", [`block ${block.name.name}(${params})`], block);
        this.canvas.setWeight(start, Poly.zero);
        this.blockEntries.set(block.name.name, start);
        const exits = this.statements(block.body, [{ from: start }]);
        const end = this.canvas.add("end", [`end of ${block.name.name}`], null);
        this.canvas.connect(exits, end);
        this.finishThrows(end);
        this.canvas.addRegion({ start, end });
      });
    }
  }

  private usedPrograms(): void {
    for (const [alias, use] of this.analysis.imports) {
      const cluster = this.canvas.addCluster("program", `program ${alias}`);
      const bound = this.options.imported?.(alias);
      const id = this.canvas.within({ cluster, multiplier: this.canvas.multiplier }, () =>
        this.canvas.add(
          "program",
          [
            `use ${quoted(use.source.value)}`,
            bound === undefined ? "bound not known here" : `critical path ${formatCount(bound.criticalPath)}`,
          ],
          use,
        ),
      );
      if (bound !== undefined) {
        const calls = Object.values(bound.calls).reduce(
          (sum: Poly, count) => sum.plus(Poly.fromCount(count)),
          Poly.zero,
        );
        this.canvas.draft(id).cost = formatCount(calls.toCount());
      }
      this.programNodes.set(alias, id);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Text
  // -------------------------------------------------------------------------------------------

  /** The node's source text on one line, shortened. */
  private text(node: ast.Node): string {
    return excerpt(this.source.slice(node.loc.start.offset, node.loc.end.offset));
  }

  private conditionText(test: ast.Expression): string {
    return test.kind === "Discretion" ? `**${excerpt(test.text)}**` : this.text(test);
  }

  /** Sessions nested in a condition run before it is tested; the test itself is the decision node. */
  private visitInsideCondition(test: ast.Expression, entry: readonly Exit[]): Exit[] {
    if (test.kind === "Discretion") return [...entry];
    return childrenOf(test).reduce<Exit[]>(
      (exits, child) => (child.kind === "Discretion" ? exits : this.visit(child, exits)),
      [...entry],
    );
  }

  private decisionKind(test: ast.Expression): "judgment" | "decision" {
    return containsDiscretion(test) ? "judgment" : "decision";
  }
}

function containsDiscretion(node: ast.Node): boolean {
  return node.kind === "Discretion" || childrenOf(node).some(containsDiscretion);
}
