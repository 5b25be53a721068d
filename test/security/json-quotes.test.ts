/**
 * A repository's JSON files (`.mcp.json`, `prose.lock`, eval cases, a golden test's files) may be links
 * to a secret, `/proc/self/environ` or a credentials file, and what prosec says of a file that is not
 * JSON reaches a CI log. JSON.parse's message quotes the start of the text; prosec's never does.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readMcpConfig } from "../../runtime/tools/mcp/config.js";
import { jsonProblem } from "../../runtime/json-problem.js";
import { readCases } from "../../src/eval/cases.js";
import { readGolden } from "../../src/golden/golden-folder.js";
import { readLockfile } from "../../src/project/lockfile.js";
import { temporaryFolder } from "../support/temp.js";

const SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI";

/** A project whose file `name` is a link to a file outside holding the secret. */
function linkedToSecret(name: string): string {
  const root = temporaryFolder("prosec-json-quotes-");
  const secret = join(root, "credentials");
  writeFileSync(secret, `${SECRET}\nmore\n`);
  const project = join(root, "project");
  mkdirSync(join(project, name, ".."), { recursive: true });
  symlinkSync(secret, join(project, name));
  return project;
}

function messageOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the read to fail");
}

describe("a JSON file that is not JSON", () => {
  it("is said to be so without quoting its text, wherever prosec reads one", () => {
    const messages = [
      messageOf(() => readMcpConfig(join(linkedToSecret(".mcp.json"), ".mcp.json"))),
      messageOf(() => readLockfile(linkedToSecret("prose.lock"))),
      messageOf(() => readCases(join(linkedToSecret("cases.jsonl"), "cases.jsonl"))),
      messageOf(() => readGolden(join(linkedToSecret("t.golden/run.json"), "t.golden"))),
    ];
    for (const message of messages) {
      expect(message).not.toContain("AWS_SECRET");
      expect(message).not.toContain("wJalr");
    }
    expect(messages[0]).toMatch(/\.mcp\.json: not valid JSON: Unexpected token/);
    expect(messages[1]).toMatch(/^prose\.lock is not valid JSON \(Unexpected token/);
  });

  it("keeps what V8 says without quoting: where the text goes wrong, or that it ends too soon", () => {
    const problem = (text: string) => messageOf(() => JSON.parse(text));
    expect(jsonProblem(new SyntaxError(problem("{a")))).toBe(problem("{a"));
    expect(problem("{a")).toMatch(/position 1/);
    expect(jsonProblem(new SyntaxError(problem("")))).toBe("Unexpected end of JSON input");
    expect(jsonProblem(new SyntaxError(problem(SECRET)))).toBe("Unexpected token: the text is not valid JSON");
  });
});
