/**
 * How each kind of node costs (a table with an entry per kind: a new kind does not compile until
 * it says). Most compose their children in source order; the entries below that do something else
 * are where the model is called, where a branch is chosen, and where something repeats.
 *
 * - A session is one call (its tool turns come on top), plus `retry: N` more; a typed one (`returns:`)
 *   also sends its schema, and may take one forced answer and the re-asks of a wrong one; a `**condition**` one
 *   judgment; a `choice` one choice. Reading structure from a value that may be text (`a.b`, `xs[0]`,
 *   `for x in text`, a truthy test of text) may take one extraction, each time it is evaluated.
 * - `parallel` adds calls but only its longest branch to the critical path; `if` / `choice` take the
 *   worst branch, after every condition.
 * - `repeat N`, `for x in xs`, pipelines and `loop (max: N)` multiply their body: by a number, a
 *   list's size (`|xs|`) or a count read at run time; `parallel for` and `pmap` add only one body to
 *   the critical path. A loop without `max` is unbounded.
 */
import type * as ast from "../../../ast.js";
import { schemaOf, sessionReturns } from "../result-types.js";
import {
  CORRECTION_TOKENS,
  DEFAULT_MODEL,
  MCP_RESULT_TOKENS,
  MCP_TOOLS_TOKENS,
  REASKS,
  REPLY_TOKENS,
  SESSION_OVERHEAD_TOKENS,
  SKILL_LINE_TOKENS,
  SKILLS_TOOL_TOKENS,
  tokensOf,
} from "./assumptions.js";
import type { CostEstimator, CostTable } from "./estimator.js";
import { Poly } from "./poly.js";
import { CostVector } from "./vector.js";

const none = (): CostVector => CostVector.none;
const children = (node: ast.Node, estimator: CostEstimator, depth: number): CostVector =>
  estimator.children(node, depth);

export const nodeCosts: CostTable = {
  Program: children,
  // names, literals and strings
  Identifier: none,
  TextPart: none,
  // A placeholder the runtime fills in reads the value (`{a.b}` may need the model).
  Placeholder: (node, estimator, depth) =>
    estimator.analysis.interpolations.has(node) ? estimator.cost(node.path, depth) : CostVector.none,
  String: children,
  TypeAnnotation: none,
  Discretion: (node, estimator, depth) => estimator.question("judgment", node, node.text.length, depth),
  Number: none,
  Boolean: none,
  Null: none,
  Array: children,
  Object: children,
  ObjectEntry: children,
  // operators and access
  Member: (node, estimator, depth) => estimator.children(node, depth).then(estimator.extraction(node.object)),
  Index: (node, estimator, depth) => estimator.children(node, depth).then(estimator.extraction(node.object)),
  Binary: (node, estimator, depth) =>
    node.operator === "and" || node.operator === "or"
      ? estimator.condition(node, depth)
      : estimator.children(node, depth),
  Unary: (node, estimator, depth) =>
    node.operator === "not" ? estimator.condition(node.operand, depth) : estimator.children(node, depth),
  // properties and modifiers
  Property: children,
  PropertyBlock: children,
  Modifier: children,
  // session-valued and block-valued expressions
  Session: (node, estimator, depth) => session(node, estimator, depth),
  Resume: (node, estimator, depth) => session(node, estimator, depth),
  DoCall: (node, estimator, depth) => estimator.children(node, depth).then(estimator.block(node, depth + 1)),
  DoBlock: children,
  NamedArgument: children,
  ProgramCall: (node, estimator, depth) => estimator.children(node, depth).then(estimator.programCall(node)),
  Arrow: children,
  PipeStage: children,
  Pipeline: (node, estimator, depth) => pipeline(node, estimator, depth),
  Parallel: (node, estimator, depth) =>
    node.branches.reduce((cost, branch) => cost.alongside(estimator.cost(branch, depth)), CostVector.none),
  Repeat: (node, estimator, depth) => {
    const body = estimator.sequence(node.body, depth);
    return estimator.cost(node.count, depth).then(body.times(estimator.number(node.count, node)));
  },
  ForEach: (node, estimator, depth) => {
    const items = estimator.items(node.collection, node.collection);
    const body = estimator.sequence(node.body, depth);
    const collection = estimator.cost(node.collection, depth).then(estimator.listExtraction(node.collection));
    return collection.then(node.parallel ? body.times(items, Poly.constant(1)) : body.times(items));
  },
  LoopCondition: (node, estimator, depth) => estimator.condition(node.test, depth),
  Loop: (node, estimator, depth) => loop(node, estimator, depth),
  Catch: children,
  Try: children,
  // statements: definitions cost where they are called
  Use: none,
  Import: none,
  Input: none,
  Agent: none,
  Block: none,
  Output: children,
  Binding: children,
  // `let { a, b } = value`: each name is a field read from the value.
  Destructure: (node, estimator, depth) =>
    node.names.reduce((cost) => cost.then(estimator.extraction(node.value)), estimator.cost(node.value, depth)),
  ExpressionStatement: children,
  // A clause's body; `If` tests every clause before it.
  IfClause: (node, estimator, depth) => estimator.sequence(node.body, depth),
  If: (node, estimator, depth) => {
    const tests = node.clauses.reduce(
      (cost, clause) => cost.then(estimator.condition(clause.test, depth)),
      CostVector.none,
    );
    const branches = [
      ...node.clauses.map((clause) => estimator.cost(clause, depth)),
      estimator.sequence(node.alternate ?? [], depth),
    ];
    return tests.then(branches.reduce((worst, branch) => worst.or(branch)));
  },
  ChoiceOption: (node, estimator, depth) => estimator.sequence(node.body, depth),
  Choice: (node, estimator, depth) => {
    const characters =
      node.criteria.text.length + node.options.reduce((sum, option) => sum + option.label.value.length, 0);
    const question = estimator.question("choice", node.criteria, characters, depth);
    return question.then(
      node.options.reduce((worst, option) => worst.or(estimator.cost(option, depth)), CostVector.none),
    );
  },
  Throw: children,
  // Leaving early only lowers what runs: the bound stays the one without it.
  Return: none,
  Break: none,
  Continue: none,
  // A statement skipped for its syntax error: such a program is never built, so never run.
  Recovered: none,
  Assert: (node, estimator, depth) =>
    estimator
      .condition(node.test, depth)
      .then(node.message === null ? CostVector.none : estimator.cost(node.message, depth)),
};

function session(
  node: ast.SessionExpression | ast.ResumeExpression,
  estimator: CostEstimator,
  depth: number,
): CostVector {
  const agent = node.agent === null ? undefined : estimator.analysis.agents.get(node.agent.name);
  const property = (key: string): ast.Property | undefined =>
    node.properties.find((candidate) => candidate.key.name === key) ??
    agent?.properties.find((candidate) => candidate.key.name === key);
  const model = modelName(property("model")?.value) ?? DEFAULT_MODEL;
  const retry = property("retry")?.value;
  const retries =
    retry === undefined || retry.kind === "PropertyBlock" || retry.kind === "TypeAnnotation"
      ? Poly.zero
      : estimator.number(retry, node);
  const returns = sessionReturns(node, estimator.analysis.agents);
  // A typed session is offered the `answer` tool: its schema is part of every request. An agent with
  // `mcp:` is offered its MCP tools and may read one result at the cap; skills are listed.
  let input =
    SESSION_OVERHEAD_TOKENS +
    (reachesMcp(property("permissions")?.value) ? MCP_TOOLS_TOKENS + MCP_RESULT_TOKENS : 0) +
    skillsTokens(property("skills")?.value) +
    (returns === undefined ? 0 : tokensOf(JSON.stringify(schemaOf(returns))));
  let values = CostVector.none;
  for (const { key, value } of [...(agent?.properties ?? []), ...node.properties]) {
    if (value.kind === "PropertyBlock" || value.kind === "TypeAnnotation") continue;
    values = values.then(estimator.cost(value, depth));
    if (key.name === "prompt") input += promptTokens(value, estimator);
    if (key.name === "context") input += REPLY_TOKENS * Math.max(1, shownValues(value));
  }
  if (node.kind === "Session" && node.prompt !== null) input += promptTokens(node.prompt, estimator);
  const call = CostVector.call("session", model, input, REPLY_TOKENS).then(
    returns === undefined ? CostVector.none : typedAnswerCalls(model, input),
  );
  const retried = retries.isZero
    ? call
    : call.then(CostVector.call("retry", model, input, REPLY_TOKENS).times(retries));
  return values.then(retried);
}

function promptTokens(value: ast.Expression, estimator: CostEstimator): number {
  if (value.kind !== "String") return REPLY_TOKENS;
  const interpolated = value.parts.filter(
    (part) => part.kind === "Placeholder" && estimator.analysis.interpolations.has(part),
  ).length;
  return tokensOf(value.value) + interpolated * REPLY_TOKENS;
}

/** How many values a `context:` shows: each of a list's or record's, else one. */
function shownValues(value: ast.Expression): number {
  return value.kind === "Array" ? value.elements.length : value.kind === "Object" ? value.entries.length : 1;
}

/**
 * What a typed session may add to its call: the forced `answer` request that follows an answer in
 * text, then `REASKS` re-asks of a wrong answer, each carrying the answers and corrections before it.
 */
function typedAnswerCalls(model: string, input: number): CostVector {
  const forced = CostVector.call("session", model, input + REPLY_TOKENS, REPLY_TOKENS);
  if (REASKS === 0) return forced;
  const reask = CostVector.call(
    "retry",
    model,
    input + (1 + REASKS) * REPLY_TOKENS + REASKS * CORRECTION_TOKENS,
    REPLY_TOKENS,
  );
  return forced.then(reask.times(Poly.constant(REASKS)));
}

function modelName(value: ast.Expression | ast.PropertyBlock | ast.TypeAnnotation | undefined): string | undefined {
  if (value?.kind === "Identifier") return value.name;
  if (value?.kind === "String" && value.parts.every((part) => part.kind === "TextPart")) return value.value;
  return undefined;
}

function loop(node: ast.LoopExpression, estimator: CostEstimator, depth: number): CostVector {
  const max = node.modifiers.find((modifier) => modifier.key?.name === "max")?.value;
  const test = node.condition === null ? CostVector.none : estimator.cost(node.condition, depth);
  const iteration = test.then(estimator.sequence(node.body, depth));
  if (max === undefined) {
    if (iteration.isZero) return CostVector.none;
    estimator.noteUnbounded(node, "loop without (max: N)");
    return CostVector.unboundedLike(iteration);
  }
  return estimator.cost(max, depth).then(iteration.times(estimator.number(max, node)));
}

/**
 * Each stage reads a list (`rt.list` at the stage): the first the source, which may be text; the
 * others the stage before's result, a list no longer than its input, or after a `reduce` a value
 * read anew.
 */
function pipeline(node: ast.PipelineExpression, estimator: CostEstimator, depth: number): CostVector {
  let cost = estimator.cost(node.source, depth);
  let items = Poly.zero;
  node.stages.forEach((stage, index) => {
    const previous = node.stages[index - 1];
    if (previous === undefined) {
      cost = cost.then(estimator.listExtraction(node.source));
      items = estimator.items(node.source, stage);
    } else if (previous.operator === "reduce") {
      cost = cost.then(estimator.listExtraction(node));
      items = estimator.items(undefined, stage);
    }
    const body = estimator.cost(stage, depth);
    if (stage.operator === "pmap") cost = cost.then(body.times(items, Poly.constant(1)));
    else if (stage.operator === "filter") cost = cost.then(body.then(verdictReading(stage, estimator)).times(items));
    else cost = cost.then(body.times(items));
  });
  return cost;
}

/** A filter's verdict may need reading when the session did not answer with its tool. */
function verdictReading(stage: ast.PipeStage, estimator: CostEstimator): CostVector {
  const last = stage.body.at(-1);
  return last?.kind === "ExpressionStatement" ? estimator.truthy(last.expression) : CostVector.none;
}

/** What `skills:` adds to a session's input: each skill's listed line and `read_skill`'s definition. */
function skillsTokens(skills: ast.Expression | ast.PropertyBlock | ast.TypeAnnotation | undefined): number {
  if (skills === undefined || skills.kind === "PropertyBlock" || skills.kind === "TypeAnnotation") return 0;
  const count = skills.kind === "Array" ? skills.elements.length : 1;
  return count === 0 ? 0 : SKILLS_TOOL_TOKENS + count * SKILL_LINE_TOKENS;
}

/** Whether `permissions:` gives MCP tools (`mcp:` with at least one glob, or `mcp: prompt`). */
function reachesMcp(permissions: ast.Expression | ast.PropertyBlock | ast.TypeAnnotation | undefined): boolean {
  if (permissions?.kind !== "PropertyBlock") return false;
  const mcp = permissions.properties.find((rule) => rule.key.name === "mcp")?.value;
  if (mcp?.kind === "Array") return mcp.elements.length > 0;
  return (mcp?.kind === "Identifier" && mcp.name === "prompt") || (mcp?.kind === "String" && mcp.value === "prompt");
}
