/**
 * The starter's eval, next to its golden test: an eval program that calls the starter and judges its
 * brief, three cases, and a script for `prosec/testing`'s scripted model, so `npm test` runs the eval
 * offline (`--scripted`) and `npm run eval` runs it against the real model (docs/evals.md).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirectory } from "../../runtime/stored-runs.js";

export const STARTER_EVAL = {
  program: "evals/research.eval.prose",
  cases: "evals/research.cases.jsonl",
  script: "evals/research.script.json",
} as const;

/** The npm scripts that run it: `npm test` offline, `npm run eval` with the model. */
export const STARTER_EVAL_COMMANDS = {
  offline: `prosec eval ${STARTER_EVAL.program} --cases ${STARTER_EVAL.cases} --scripted ${STARTER_EVAL.script} --min 0.9`,
  model: `prosec eval ${STARTER_EVAL.program} --cases ${STARTER_EVAL.cases} --min 0.9`,
} as const;

const PROGRAM = `# An eval of the starter: prosec eval runs it once per case, and scores each assert.
# A judged assert (**...**) is asked of the model, like any judgment.
use "../src/research.prose" as research

input topic: "The topic to research"
input audience: "Who will read the brief"

let { brief, headline } = research(topic: topic, audience: audience)

assert **the brief is written for {audience}, in plain language**:
  "the brief fits its audience"

assert **the headline is a single sentence**:
  "the headline is one sentence"

output result = brief
`;

const CASES = [
  { name: "tidal power", inputs: { topic: "tidal power", audience: "engineers new to the field" } },
  { name: "heat pumps", inputs: { topic: "heat pumps", audience: "home owners" } },
  { name: "grid storage", inputs: { topic: "grid-scale batteries", audience: "city council members" } },
];

/** What the scripted model answers offline: sessions by binding, every judgment yes. */
const SCRIPT = {
  answers: {
    background: "Background: how it works, where it is used, what it costs.",
    recent: "Recent: new installations and falling prices.",
    risks: "Risks: cost, supply chains, grid connection.",
    brief: "A short brief in plain language for its readers.",
    headline: "A proven technology is getting cheaper.",
  },
  defaults: { judge: { answer: true, reason: "scripted: offline, every judgment holds" } },
};

export function writeStarterEval(root: string): void {
  makeDirectory(join(root, "evals"));
  writeFileSync(join(root, STARTER_EVAL.program), PROGRAM);
  writeFileSync(join(root, STARTER_EVAL.cases), `${CASES.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
  writeFileSync(join(root, STARTER_EVAL.script), `${JSON.stringify(SCRIPT, null, 2)}\n`);
}
