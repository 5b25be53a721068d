/**
 * A run at rest has one home: the RunStore (src/runs/). No command, page or test outside the store
 * branches on the backend that keeps a run (DBOS or `.prose/runs/`): it opens the store
 * (openRunStore) and asks it. What counts as branching, in a module's code (comments and strings
 * aside):
 *
 * - reading the database's address: `databaseUrl`, `configuredDatabaseUrl`, `systemDatabaseUrl`,
 *   `process.env` of DBOS_SYSTEM_DATABASE_URL;
 * - comparing with `"dbos"`, or comparing a run's `store`;
 * - importing DBOS (`@dbos-inc/`, `runtime/dbos/`, src/worker/) or the store's DBOS side (`runs/dbos-`).
 *
 * Outside the rule: the store itself (src/runs/, and src/worker/ under it), the DBOS-only commands
 * (`worker`, `submit`, `migrate`, `status`, `result`: src/cli/dbos-commands.ts and worker-commands.ts),
 * the DBOS suites (test/dbos/ and their support), and the store's own tests (test/runs/, the shared
 * table test/support/run-store-cases.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

const OUTSIDE_THE_RULE = [
  /^src\/runs\//,
  /^src\/worker\//,
  /^src\/cli\/(dbos-commands|worker-commands)\.ts$/,
  /^test\/dbos\//,
  /^test\/runs\//,
  /^test\/support\/(dbos|postgres|run-store-cases)\.ts$/,
  /^test\/meta\/one-store\.test\.ts$/,
];

const RULES: ReadonlyArray<readonly [string, RegExp]> = [
  ["reads the database's address", /\b(databaseUrl|configuredDatabaseUrl|systemDatabaseUrl)\b/],
  ["reads the database's address", /process\.env(\.DBOS_SYSTEM_DATABASE_URL|\[\s*["'`]DBOS_SYSTEM_DATABASE_URL)/],
  ["compares with dbos", /[!=]==?\s*["'`]dbos["'`]|["'`]dbos["'`]\s*[!=]==?/i],
  ["compares a run's store", /\bstore\s*[!=]==?[^=]|[!=]==?\s*[\w.?]*\bstore\b(?!\s*\()/],
  ["imports DBOS", /from\s+["'`](@dbos-inc\/|[./]*(runtime\/dbos\/|worker\/|runs\/dbos-))/],
  ["imports DBOS", /import\(\s*["'`](@dbos-inc\/|[./]*(runtime\/dbos\/|worker\/|runs\/dbos-))/],
];

/** The module's code with its comments gone and its strings emptied (template literals keep their `${...}`). */
function codeOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  let code = "";
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const piece = scanner.getTokenText();
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia)
      code += piece.replace(/[^\n]/g, " ");
    // An import's specifier and an environment variable's name are what the rules read: kept (and
    // "dbos", compared with). Other strings only say things.
    else if (token === ts.SyntaxKind.StringLiteral && !/(from|import\(|process\.env\[)\s*$/.test(code))
      code += /^["']dbos["']$/i.test(piece) ? piece : `""`;
    else code += piece;
  }
  return code;
}

/** Each line of `text` that breaks a rule: `line: what it does`. */
export function branchesOnBackend(text: string): string[] {
  const found: string[] = [];
  codeOf(text)
    .split("\n")
    .forEach((line, index) => {
      for (const [what, pattern] of RULES) if (pattern.test(line)) found.push(`${index + 1}: ${what}`);
    });
  return [...new Set(found)];
}

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("one store", () => {
  it("finds a planted branch on the backend, and leaves comments, messages and the store's calls alone", () => {
    const planted = [
      'import { configuredDatabaseUrl } from "../worker/database-url.js";',
      "const url = configuredDatabaseUrl();",
      'if (run.store === "dbos") show(run);',
      'const { DBOSClient } = await import("@dbos-inc/dbos-sdk");',
      "const found = process.env['DBOS_SYSTEM_DATABASE_URL'];",
      'const steps = await import("../runs/dbos-list.js");',
      'if (kind !== "DBOS") return;',
    ].join("\n");
    expect(branchesOnBackend(planted)).toEqual([
      "1: reads the database's address",
      "1: imports DBOS",
      "2: reads the database's address",
      "3: compares with dbos",
      "3: compares a run's store",
      "4: imports DBOS",
      "5: reads the database's address",
      "6: imports DBOS",
      "7: compares with dbos",
    ]);
    const innocent = [
      "// set DBOS_SYSTEM_DATABASE_URL (a databaseUrl) to list a DBOS database's runs too",
      'throw new UsageError("set DBOS_SYSTEM_DATABASE_URL to resume a run in a DBOS database");',
      'import { openRunStore } from "../runs/open-run-store.js";',
      "const runs = await openRunStore(cwd).list();",
      "const row = [run.runId, run.store, run.status];",
    ].join("\n");
    expect(branchesOnBackend(innocent)).toEqual([]);
  });

  it("no command, page or test outside the store branches on DBOS vs folder", () => {
    const files = [...sources(join(root, "src")), ...sources(join(root, "test"))]
      .map((file) => relative(root, file).split("\\").join("/"))
      .filter((file) => !OUTSIDE_THE_RULE.some((pattern) => pattern.test(file)));
    expect(files.length).toBeGreaterThan(200);
    const found = files.flatMap((file) =>
      branchesOnBackend(readFileSync(join(root, file), "utf8")).map((hit) => `${file}:${hit}`),
    );
    expect(found).toEqual([]);
  });
});
