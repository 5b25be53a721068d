/**
 * A `parallel for`, `pmap`, `map` or `for` whose items end in a typed session (`returns:`) is a list of that
 * type in the generated module (fixtures/typed-lists.prose, snapshot snapshots/typed-lists.prose.ts):
 * an app that imports the module reads an element's fields type-checked, and a field the type does
 * not have is a compile error (strict, as `--typecheck` checks modules).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { typecheck, type TypeError } from "../../src/project/typecheck.js";

const source = readFileSync(fileURLToPath(new URL("../../fixtures/typed-lists.prose", import.meta.url)), "utf8");
let module: string;

beforeAll(() => {
  const lowered = lowerSource(source, "typed-lists.prose");
  expect(lowered.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  module = lowered.code!;
});

/** The type-check errors of the module with an app beside it that imports it. */
function checkApp(app: string): Promise<TypeError[]> {
  return typecheck([
    { path: "/project/typed-lists.prose.ts", code: module },
    { path: "/project/app.ts", code: `import { run } from "./typed-lists.prose.js";\n${app}` },
  ]);
}

const outputsOf = (code: string): string =>
  code
    .slice(code.indexOf("export type Outputs = "), code.indexOf("\n\nconst program"))
    .replace(/\s+/g, " ")
    .replace(/; \}/g, " }");

describe("typed lists of parallel for, pmap, map and for", () => {
  it("are lists of the sessions' returns: type in Outputs, with null for an item a continue may end", () => {
    const outputs = outputsOf(module);
    expect(outputs).toContain(
      "readonly findings: readonly { readonly topic: string; readonly sources: readonly string[]; readonly confidence: number }[];",
    );
    expect(outputs).toContain(
      "readonly ranked: readonly ({ readonly topic: string; readonly rank: number } | null)[];",
    );
    expect(outputs).toContain("readonly summaries: readonly { readonly topic: string; readonly summary: string }[];");
    expect(outputs).toContain("readonly checks: readonly ({ readonly passed: boolean } | null)[];");
    // What is read off the list is typed as a single session's result is.
    expect(outputs).toContain("readonly first: string | null }");
    expect(module).not.toMatch(/readonly (findings|ranked|summaries|checks): Value/);
  });

  it("type-check in an app that reads an element's fields", async () => {
    const errors = await checkApp(
      [
        "export async function report(): Promise<string> {",
        '  const out = await run({ topics: "moons, tides" });',
        "  const sources: readonly string[] = out.findings[0]?.sources ?? [];",
        "  const confidence: number = out.findings.reduce((sum, finding) => sum + finding.confidence, 0);",
        "  const ranks: number[] = out.ranked.flatMap((ranked) => (ranked === null ? [] : [ranked.rank]));",
        "  const summary: string | undefined = out.summaries[0]?.summary;",
        "  const passed: boolean = out.checks.every((check) => check?.passed !== false);",
        "  return `${sources.join()} ${confidence} ${ranks.join()} ${summary} ${passed} ${out.first}`;",
        "}",
        "",
      ].join("\n"),
    );
    expect(errors).toEqual([]);
  });

  it("refuse a field the element type does not have, and an element that may be null read as if not", async () => {
    const errors = await checkApp(
      [
        "export async function report(): Promise<unknown> {",
        '  const out = await run({ topics: "moons" });',
        "  const wrong = out.findings[0]?.titel;",
        "  const unchecked = out.ranked.map((ranked) => ranked.rank);",
        "  return [wrong, unchecked];",
        "}",
        "",
      ].join("\n"),
    );
    expect(errors.map((error) => [error.path, error.line])).toEqual([
      ["/project/app.ts", 4],
      ["/project/app.ts", 5],
    ]);
    expect(errors[0]!.message).toMatch(/Property 'titel' does not exist/);
    expect(errors[1]!.message).toMatch(/'ranked' is possibly 'null'/);
  });
});
