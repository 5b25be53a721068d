/**
 * The calls of a compiled module's `run` that the documentation shows (`run(inputs, { runDir, resume:
 * true })` and the like) type-check in strict mode against a real module, so a page cannot show a call
 * that fails with TS2345. They are read from the pages themselves; the module has the inputs they name.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { typecheck } from "../../src/project/typecheck.js";
import { prosec, repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const PAGES = ["README.md", "runtime/README.md", "docs/running.md", "docs/resume.md", "docs/run-folder.md"];

/** Every `run(…, { …runDir… })` call a page shows (in code spans and code blocks). */
function documentedCalls(): { page: string; call: string }[] {
  return PAGES.flatMap((page) =>
    [
      ...readFileSync(join(repositoryRoot, page), "utf8").matchAll(
        /\brun\((?:\{[^()`]*\}|\w+), \{[^()`]*\brunDir\b[^()`]*\}\)/g,
      ),
    ].map((match) => ({ page, call: match[0] })),
  );
}

it("every documented `run(inputs, { runDir, ... })` call type-checks against a compiled module", async () => {
  const calls = documentedCalls();
  expect(calls.map((found) => found.page)).toEqual(expect.arrayContaining(["runtime/README.md", "docs/running.md"]));
  expect(calls.length).toBeGreaterThanOrEqual(4);
  const folder = temporaryFolder("prosec-doc-calls-");
  writeFileSync(
    join(folder, "research.prose"),
    'input topic: "A topic"\nlet notes = session "Research {topic}"\ninput reader: "Who will read it?"\noutput report = session "Write for {reader}"\n  context: notes\n',
  );
  const built = prosec(["build", "research.prose"], folder);
  expect(built.status, built.stdout + built.stderr).toBe(0);
  const module = {
    path: join(folder, "research.prose.ts"),
    code: readFileSync(join(folder, "research.prose.ts"), "utf8"),
  };
  const app = {
    path: join(folder, "app.ts"),
    code: [
      'import { run, type Inputs } from "./research.prose.js";',
      "declare const inputs: Inputs;",
      "declare const runDir: string;",
      "declare const answer: string;",
      ...calls.map((found, index) => `export const call${index} = () => ${found.call}; // ${found.page}`),
      "",
    ].join("\n"),
  };
  const errors = await typecheck([module, app]);
  expect(
    errors.map(
      (error) => `${calls[error.line - 5]?.page ?? error.path}: ${calls[error.line - 5]?.call}: ${error.message}`,
    ),
  ).toEqual([]);
});
