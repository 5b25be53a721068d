/**
 * The user guide stands on its own: every `prose` example in docs/ compiles without errors. (Links and
 * anchors are checked by `npm run lint:md`; see markdown.test.ts.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { repositoryRoot } from "../support/cli.js";

const docs = readdirSync(join(repositoryRoot, "docs"))
  .filter((file) => file.endsWith(".md"))
  .map((file) => `docs/${file}`);

describe("docs/", () => {
  it("every prose example compiles without errors", () => {
    const failures: string[] = [];
    let examples = 0;
    for (const file of docs) {
      for (const match of readFileSync(join(repositoryRoot, file), "utf8").matchAll(/```prose\n([\s\S]*?)```/g)) {
        examples++;
        const errors = checkSource(match[1]!).diagnostics.filter((diagnostic) => diagnostic.severity === "error");
        if (errors.length > 0)
          failures.push(`${file}: ${errors.map((error) => `${error.code} ${error.message}`).join("; ")}\n${match[1]}`);
      }
    }
    expect(examples).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});
