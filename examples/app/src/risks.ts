/**
 * Reads a typed result: `risks.prose` says what its session returns (`returns:`), so its `Outputs`
 * type is that list, and the app filters and maps it like any other typed array. The runtime has
 * checked the model's answer against the same type, asking again when it did not match.
 */
import type { RunOptions } from "prosec/runtime";
import { run as reviewPlan, type Outputs as PlanReview } from "./workflows/risks.prose.js";

/** One risk as the program declares it: `{ title, severity, mitigation? }`. */
export type Risk = PlanReview["risks"][number];

/** The titles of the plan's high-severity risks, each with its mitigation when the model gave one. */
export async function highRisks(plan: string, options: RunOptions = {}): Promise<string[]> {
  const { risks } = await reviewPlan({ plan }, options);
  return risks
    .filter((risk) => risk.severity === "high")
    .map((risk) => (risk.mitigation === undefined ? risk.title : `${risk.title} (${risk.mitigation})`));
}
