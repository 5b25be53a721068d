/** Every rule, in the order their findings are reported for one node. */
import type * as ast from "../../../ast.js";
import { blockArity } from "./block-arity.js";
import { emptyCondition } from "./conditions.js";
import { filterVerdict } from "./filter-verdict.js";
import { repeatCount } from "./counts.js";
import { legacyImport } from "./legacy-import.js";
import { loopLimit } from "./loop-limit.js";
import { modifiers } from "./modifiers.js";
import { numberRange } from "./numbers.js";
import { optionLabels } from "./option-labels.js";
import { programCalls } from "./program-calls.js";
import { sessionPrompt } from "./prompts.js";
import { properties } from "./properties.js";
import { recordKeys } from "./record-keys.js";
import { resumePersist } from "./resume-persist.js";
import type { Rule, RuleContext } from "./rule.js";
import { tryHandler } from "./try-handler.js";

export type { ProgramInterface, RuleContext } from "./rule.js";

const rules: readonly Rule[] = [
  legacyImport,
  optionLabels,
  emptyCondition,
  sessionPrompt,
  resumePersist,
  properties,
  blockArity,
  programCalls,
  modifiers,
  loopLimit,
  repeatCount,
  tryHandler,
  numberRange,
  recordKeys,
  filterVerdict,
];

type Check = (node: ast.Node, context: RuleContext) => void;

/** Each kind's checks, in the order of `rules`: one lookup per node. */
const checksByKind = new Map<ast.NodeKind, Check[]>();
for (const rule of rules) {
  for (const [kind, check] of Object.entries(rule) as [ast.NodeKind, Check][]) {
    checksByKind.set(kind, [...(checksByKind.get(kind) ?? []), check]);
  }
}

/** Runs every rule that looks at this kind of node. */
export function checkNode(node: ast.Node, context: RuleContext): void {
  const checks = checksByKind.get(node.kind);
  if (checks) for (const check of checks) check(node, context);
}
