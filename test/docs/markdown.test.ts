/**
 * `npm run lint:md` (in `npm test`) lints every markdown file with the repository's `.remarkrc.mjs`.
 * These tests hold what that configuration catches, on files made to fail it, and what the README keeps.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSource } from "../../src/pipeline.js";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const remark = join(repositoryRoot, "node_modules/remark-cli/cli.js");
const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");

function lint(files: Record<string, string>): { status: number | null; report: string } {
  const folder = temporaryFolder("prosec-markdown-");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const result = spawnSync(
    process.execPath,
    [remark, "--frail", "--quiet", "--no-color", "--rc-path", join(repositoryRoot, ".remarkrc.mjs"), "."],
    { cwd: folder, encoding: "utf8" },
  );
  return { status: result.status, report: result.stderr };
}

describe("the markdown lint", () => {
  it("passes a page whose links, anchors and fences are sound", () => {
    const result = lint({
      "a.md": "# A\n\nSee [the second](b.md#second-part) and [above](#a).\n\n```sh\nls\n```\n",
      "b.md": "# B\n\n## Second part\n\nText.\n",
    });
    expect(result.report).toBe("");
    expect(result.status).toBe(0);
  });

  it("fails a missing file, a missing anchor and a fence that does not close", () => {
    const result = lint({
      "a.md": "# A\n\nSee [b](b.md#nowhere) and [c](c.md).\n\n```sh\nls\n``` then text\n\n## More\n",
      "b.md": '# B\n\n```prose\nsession "x"\n',
    });
    expect(result.status).toBe(1);
    expect(result.report).toContain("Cannot find heading for `#nowhere` in `b.md`");
    expect(result.report).toContain("Cannot find file `c.md`");
    expect(result.report).toMatch(/a\.md[\s\S]*7:1 +warning This line starts with ``` but goes on with text/);
    expect(result.report).toMatch(/b\.md[\s\S]*3:1 +warning Fenced code block is never closed/);
  });

  it("fails a merge's conflict markers left in a page", () => {
    const result = lint({
      "a.md": "# A\n\n<<<<<<< HEAD\nOurs.\n=======\nTheirs.\n>>>>>>> main\n\n## B\n\nText.\n",
    });
    expect(result.status).toBe(1);
    expect(result.report).toMatch(/3:1 +warning A merge conflict marker \(<<<<<<<\)/);
    expect(result.report).toMatch(/5:1 +warning A merge conflict marker \(=======\)/);
    expect(result.report).toMatch(/7:1 +warning A merge conflict marker \(>>>>>>>\)/);
  });
});

describe("README.md", () => {
  it("is a front page of at most 300 lines that points into docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    for (const page of ["docs/language.md", "docs/cli.md", "docs/running.md", "docs/testing.md", "bench/README.md"])
      expect(readme).toContain(`](${page}`);
  });

  it("has a Quick start of two commands, which are exactly what CI runs", () => {
    const quickStart = /## Quick start\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const commands = quickStart
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter(Boolean);
    expect(commands).toHaveLength(2);
    const ci = readFileSync(join(repositoryRoot, ".ci/run"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#") && !/^(set|cd) /.test(line));
    expect(ci).toEqual(commands);
  });

  it("shows a program that compiles without errors", () => {
    const programs = [...readme.matchAll(/```prose\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(programs.length).toBeGreaterThan(0);
    for (const program of programs)
      expect(checkSource(program).diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  });
});
