/**
 * CONTRIBUTING.md and docs/architecture.md name the repository's files and folders: every one they name
 * must exist, and every `npm run` script they name must be in package.json, so a move or a rename that
 * forgets them fails here instead of misleading the next contributor. docs/architecture.md draws every
 * folder of src/ and runtime/.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../support/cli.js";

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts,
);

/** The code spans of a page that name a path in the repository: `src/cli/main.ts`, `fixtures/`, `CHANGELOG.md`. */
function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
  return [
    ...new Set(
      spans.filter(
        (span) =>
          /^\.?[\w.-]+(\/[\w.-]*)*$/.test(span) &&
          (span.includes("/") || /\.(ts|mjs|md|ne|json)$/.test(span)) &&
          !span.startsWith("@") &&
          !span.startsWith("prosec/"),
      ),
    ),
  ];
}

/** Whether a named path is the repository's (its first segment is at the top level), not a user project's (`.prose/runs/`). */
function inRepository(path: string): boolean {
  return existsSync(join(repositoryRoot, path.split("/")[0]!));
}

/** The scripts a page runs with `npm run <script>`. */
function namedScripts(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!))];
}

describe("CONTRIBUTING.md", () => {
  const page = readFileSync(join(repositoryRoot, "CONTRIBUTING.md"), "utf8");

  it("names only paths that exist", () => {
    const paths = namedPaths(page).filter(inRepository);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((path) => !existsSync(join(repositoryRoot, path)))).toEqual([]);
  });

  it("runs only npm scripts package.json has", () => {
    const named = namedScripts(page);
    expect(named).toEqual(expect.arrayContaining(["test:fast", "build", "grammar", "codes", "lint:md"]));
    expect(named.filter((script) => !scripts.includes(script))).toEqual([]);
  });

  it("says how to add a statement, a rule, a CLI command and a runtime step", () => {
    for (const heading of [
      "## Adding a statement",
      "## Adding a rule",
      "## Adding a CLI command",
      "## Adding a runtime step",
      "## Running the tests",
      "## Commits",
    ])
      expect(page).toContain(heading);
    expect(page).toContain("`commandTable` in `src/cli/main.ts`");
  });
});

describe("docs/architecture.md", () => {
  const page = readFileSync(join(repositoryRoot, "docs/architecture.md"), "utf8");
  const paths = namedPaths(page).filter(inRepository);

  it("names only paths that exist", () => {
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((path) => !existsSync(join(repositoryRoot, path)))).toEqual([]);
  });

  it("draws every room of src/ and runtime/, and states no test count", () => {
    const rooms = ["src", "runtime"].flatMap((top) =>
      readdirSync(join(repositoryRoot, top), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${top}/${entry.name}/`),
    );
    expect(rooms.filter((room) => !paths.some((path) => path.startsWith(room)))).toEqual([]);
    expect(page).not.toMatch(/\d[\d,]* tests\b/);
    expect(page).not.toMatch(/\(\d[\d,]* tests?\)/);
  });

  it("runs only npm scripts package.json has", () => {
    expect(namedScripts(page).filter((script) => !scripts.includes(script))).toEqual([]);
  });
});

describe("namedPaths", () => {
  it("takes paths and leaves out words, packages, placeholders and globs", () => {
    expect(
      namedPaths(
        "`src/cli/main.ts`, `fixtures/`, `CHANGELOG.md`, `.ci/run`, `npm test`, `@anthropic-ai/sdk`, `prosec/runtime`, `src/cli/<name>-command.ts`, `*.slow.test.ts`, `EXIT`",
      ),
    ).toEqual(["src/cli/main.ts", "fixtures/", "CHANGELOG.md", ".ci/run"]);
  });

  it("tells the repository's paths from a user project's", () => {
    expect(["src/cli/main.ts", "src/no-such-room/", ".prose/runs/", "prose_modules/"].filter(inRepository)).toEqual([
      "src/cli/main.ts",
      "src/no-such-room/",
    ]);
  });
});
