/**
 * Writes one newsletter issue about a topic with two compiled OpenProse workflows: `research.prose`
 * produces a brief, and its `brief` output becomes the `brief` input of `newsletter.prose` (which in
 * turn calls `critique.prose` in its revision loop).
 *
 *   npm run build
 *   ANTHROPIC_API_KEY=sk-ant-... node dist/main.js "home battery storage" "homeowners" [--json]
 *
 * The API key and base URL are read from the environment the way the Anthropic SDK reads them
 * (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`): the runtime does that when `RunOptions` leaves them out.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { ProseError, text, type RunEvent, type RunOptions, type Value } from "prosec/runtime";
import { run as writeNewsletter } from "./workflows/newsletter.prose.js";
import researchProgram, { run as research, type Inputs as ResearchInputs } from "./workflows/research.prose.js";

export interface IssueRequest {
  readonly topic: string;
  readonly audience: string;
}

export interface Issue {
  readonly headline: string;
  readonly brief: string;
  readonly issue: string;
  readonly revisions: number;
}

/** Runs both workflows; `options` go to both runs (models, concurrency, events, ...). */
export async function writeIssue(request: IssueRequest, options: RunOptions = {}): Promise<Issue> {
  const inputs: ResearchInputs = { topic: request.topic, audience: request.audience };
  const researched = await research(inputs, options);
  // One workflow's output is the other's input: both are typed `string`, so this is checked.
  const newsletter = await writeNewsletter({ brief: researched.brief, audience: request.audience }, options);
  return {
    headline: researched.headline,
    brief: researched.brief,
    issue: newsletter.issue,
    revisions: count(newsletter["revision-count"]),
  };
}

function count(value: Value): number {
  const number = typeof value === "number" ? value : Number(text(value));
  return Number.isFinite(number) ? number : 0;
}

/** One line on stderr per session and judgment, so a long run shows progress. */
function progress(event: RunEvent): void {
  if (event.type === "session-start")
    process.stderr.write(`  session ${event.label}${event.agent === undefined ? "" : ` (${event.agent})`}\n`);
  else if (event.type === "judgment") process.stderr.write(`  judged "${event.question}": ${event.answer}\n`);
}

async function main(argv: readonly string[]): Promise<number> {
  const json = argv.includes("--json");
  const [topic = "home battery storage", audience = "homeowners who are new to the subject"] = argv.filter(
    (argument) => !argument.startsWith("--"),
  );
  if (!process.env["ANTHROPIC_API_KEY"]) {
    process.stderr.write("Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another Anthropic-compatible server).\n");
    return 2;
  }
  const inputNames = researchProgram.inputs.map((input) => input.name).join(", ");
  process.stderr.write(`${researchProgram.name} (${inputNames}) -> newsletter: ${topic}\n`);
  const issue = await writeIssue({ topic, audience }, { concurrency: 4, onEvent: progress });
  if (json) process.stdout.write(`${JSON.stringify(issue)}\n`);
  else
    process.stdout.write(
      `# ${issue.headline}\n\n${issue.issue}\n\n(${issue.revisions} revision${issue.revisions === 1 ? "" : "s"})\n`,
    );
  return 0;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // A ProseError names the .prose file and line that failed.
      process.stderr.write(`${error instanceof ProseError ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
