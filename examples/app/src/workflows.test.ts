/**
 * The workflows under a scripted model (`prosec/testing`), with Node's own test runner:
 *
 *   npm run build && node --test dist/workflows.test.js
 *
 * The real runtime runs each workflow (parallel branches, the judged revision loop, the call of
 * critique.prose); only the model's replies are written here, keyed by the names the workflows bind
 * them to and by the condition of the judgment. No server, no API key, nothing paid.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runScripted, sequence } from "prosec/testing";
import * as newsletter from "./workflows/newsletter.prose.js";
import * as research from "./workflows/research.prose.js";
import * as risks from "./workflows/risks.prose.js";

test("the publish judgment sees the first draft, then the revision made from the critic's feedback", async () => {
  const run = await runScripted(
    newsletter,
    { brief: "Solid-state cells are close to market.", audience: "field engineers" },
    {
      answers: {
        draft: sequence("FIRST DRAFT", "REVISED DRAFT"),
        "critique/feedback": "Cut the second paragraph.",
        "**ready to publish**": sequence(false, true),
      },
      strict: true,
    },
  );
  assert.deepEqual(run.outputs, { issue: "REVISED DRAFT", "revision-count": 1 });

  const [first, second] = run.requestsFor("**ready to publish**");
  assert.ok(first && second && run.requestsFor("**ready to publish**").length === 2);
  assert.match(first.prompt, /Condition: the draft is accurate, clear and ready to publish/);
  assert.match(first.prompt, /FIRST DRAFT/);
  assert.doesNotMatch(first.prompt, /Cut the second paragraph/);
  assert.match(second.prompt, /REVISED DRAFT/);
  assert.match(second.prompt, /Cut the second paragraph\./);

  // The critic (critique.prose, called from the loop) reviewed the first draft for the audience.
  const [review] = run.requestsFor("critique/feedback");
  assert.ok(review);
  assert.match(review.prompt, /Review this draft for field engineers/);
  assert.match(review.prompt, /FIRST DRAFT/);
  assert.deepEqual(run.unusedAnswers, []);
});

test("the brief is written from all three research angles, which ran side by side", async () => {
  const run = await runScripted(
    research,
    { topic: "tidal power", audience: "homeowners" },
    {
      answers: {
        background: "BACKGROUND",
        recent: "RECENT",
        risks: "RISKS",
        brief: "THE BRIEF",
        headline: "THE HEADLINE",
      },
      strict: true,
    },
  );
  assert.deepEqual(run.outputs, { brief: "THE BRIEF", headline: "THE HEADLINE" });
  const [brief] = run.requestsFor("brief");
  assert.ok(brief);
  for (const note of ["BACKGROUND", "RECENT", "RISKS"])
    assert.ok(brief.prompt.includes(note), `the brief's prompt lacks ${note}`);
  assert.match(brief.system, /You write short, plain-language briefs/);
  assert.deepEqual(run.requestsFor("headline")[0]?.prompt.includes("THE BRIEF"), true);
});

test("a typed result: the scripted model answers with values of the declared type, and the app reads them without a cast", async () => {
  const run = await runScripted(
    risks,
    { plan: "Move the database on Friday evening." },
    {
      answers: {
        risks: [
          { title: "No rollback", severity: "high", mitigation: "Snapshot first" },
          { title: "Weekend on-call", severity: "low" },
        ],
      },
      strict: true,
    },
  );
  const high = run.outputs.risks.filter((risk) => risk.severity === "high").map((risk) => risk.title);
  assert.deepEqual(high, ["No rollback"]);
  // One request: the answer came through the `answer` tool, checked against the type, with no re-ask.
  assert.equal(run.requests.length, 1);
  assert.ok(run.requests[0]?.tools.includes("answer"));

  // With no answer written, the scripted model builds one of the type from the schema.
  const defaults = await runScripted(risks, { plan: "Anything." });
  assert.deepEqual(defaults.outputs.risks[0], { title: "title", severity: "low", mitigation: "mitigation" });
});
