/**
 * Compile-time proof that the generated types are checked. Nothing here runs: `tsc` passes only
 * while each line marked `@ts-expect-error` really is an error (an unused one is itself an error).
 * The code after each directive is the error TypeScript reports there; test/app/example-app.slow.test.ts
 * removes the directives and checks that exactly those errors appear.
 */
import type { RunOptions } from "prosec/runtime";
import { run as writeNewsletter } from "./workflows/newsletter.prose.js";
import researchProgram, { run as research } from "./workflows/research.prose.js";
import { run as reviewPlan } from "./workflows/risks.prose.js";

export async function misuse(options: RunOptions): Promise<void> {
  // A wrong input type: a function is not a value a program accepts.
  // @ts-expect-error TS2322
  await research({ topic: () => "batteries", audience: "homeowners" }, options);

  // A wrong-typed input: a plain `input` is text, not a number.
  // @ts-expect-error TS2322
  await research({ topic: 42, audience: "homeowners" }, options);

  // A missing input.
  // @ts-expect-error TS2345
  await research({ topic: "batteries" }, options);

  // An input the program does not declare.
  // @ts-expect-error TS2353
  await research({ topic: "batteries", audience: "homeowners", depth: 3 }, options);

  const researched = await research({ topic: "batteries", audience: "homeowners" }, options);

  // An output the program does not declare.
  // @ts-expect-error TS2339
  console.log(researched.summary);

  // Outputs say what the program knows: a session's result is text, not a number.
  // @ts-expect-error TS2322
  const headline: number = researched.headline;
  console.log(headline);

  // An output bound by arithmetic is a Value (text or a number): not a number until it is read as one.
  const newsletter = await writeNewsletter({ brief: researched.brief, audience: "homeowners" }, options);
  // @ts-expect-error TS2322
  const revisions: number = newsletter["revision-count"];
  console.log(revisions);

  // Passing one workflow's outputs where the other expects its inputs: `brief` is missing.
  // @ts-expect-error TS2345
  await writeNewsletter({ audience: researched.headline }, options);

  // A typed result (`returns:`) has the fields its type declares: `title` compiles, `owner` does not.
  const { risks } = await reviewPlan({ plan: "Move the database on Friday" }, options);
  console.log(risks[0]?.title);
  // @ts-expect-error TS2339
  console.log(risks[0]?.owner);

  // Its literal types are checked too: `severity` is "low", "medium" or "high".
  // @ts-expect-error TS2367
  if (risks.some((risk) => risk.severity === "critical")) console.log("critical");

  // The default export, the program's metadata, is read-only.
  // @ts-expect-error TS2540
  researchProgram.name = "renamed";
}
