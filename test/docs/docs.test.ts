/**
 * The user guide stands on its own: every `prose` example in docs/ compiles without errors, and every
 * relative link in the docs and READMEs points to a file of the repository.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { repositoryRoot } from "../support/cli.js";

const docs = readdirSync(join(repositoryRoot, "docs"))
  .filter((file) => file.endsWith(".md"))
  .map((file) => `docs/${file}`);
const markdown = [...docs, "README.md", "runtime/README.md", "examples/app/README.md", "examples/openprose/ORIGIN.md"];

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

  it("every relative link points into the repository, never beside it", () => {
    const broken: string[] = [];
    for (const file of markdown) {
      for (const match of readFileSync(join(repositoryRoot, file), "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!.split("#")[0]!;
        if (target === "" || /^[a-z]+:/.test(target)) continue;
        const path = join(repositoryRoot, dirname(file), target);
        if (!path.startsWith(repositoryRoot) || !existsSync(path)) broken.push(`${file} → ${match[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
