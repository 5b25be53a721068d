import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

let workspace: string;

beforeAll(() => {
  workspace = temporaryFolder("prosec-check-");
  writeFileSync(join(workspace, "good.prose"), 'session "Hello"\n');
  mkdirSync(join(workspace, "nested/deeper"), { recursive: true });
  mkdirSync(join(workspace, "node_modules"));
  writeFileSync(join(workspace, "node_modules/ignored.prose"), "let = \n");
  writeFileSync(join(workspace, "nested/deeper/bad.prose"), 'session "a"\nlet = 1\nparallel:\nsession "b"\n');
  writeFileSync(join(workspace, "nested/a.prose"), 'session "fine"\n');
});

describe("prosec check", () => {
  it("exits 0 and summarises when every program is clean", () => {
    const result = prosec(["check", "good.prose"], workspace);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("1 file checked: 0 errors, 0 warnings\n");
  });

  it("prints file:line:col severity CODE message with a code frame, and exits 1", () => {
    const result = prosec(["check", "nested"], workspace);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("nested/deeper/bad.prose:2:5 error E004 unexpected `=`: expected a name or `{`\n");
    expect(result.stdout).toContain("> 2 | let = 1\n");
    expect(result.stdout).toContain(
      "nested/deeper/bad.prose:3:9 error E005 expected an indented block after `parallel:`",
    );
    expect(result.stdout).toContain("help: indent the lines that belong to it");
    expect(result.stdout).toMatch(/2 files checked: 2 errors, 0 warnings\n$/);
  });

  it("searches folders recursively in sorted order, skipping node_modules", () => {
    const result = prosec(["check", ".", "--format", "json"], workspace);
    const report = JSON.parse(result.stdout) as { files: { file: string }[] };
    expect(report.files.map((file) => file.file)).toEqual(["good.prose", "nested/a.prose", "nested/deeper/bad.prose"]);
  });

  it("--format json gives every file with code, severity, message and range", () => {
    const result = prosec(["check", "nested/deeper/bad.prose", "--format", "json"], workspace);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      files: [
        {
          file: "nested/deeper/bad.prose",
          diagnostics: [
            {
              code: "E004",
              severity: "error",
              message: "unexpected `=`: expected a name or `{`",
              line: 2,
              column: 5,
              endLine: 2,
              endColumn: 6,
            },
            {
              code: "E005",
              severity: "error",
              message: "expected an indented block after `parallel:`",
              line: 3,
              column: 9,
              endLine: 3,
              endColumn: 10,
              hint: "indent the lines that belong to it (2 spaces is usual)",
            },
          ],
        },
      ],
    });
  });

  it("shows where a duplicate was first defined: a note line in text, a `related` array in JSON", () => {
    writeFileSync(join(workspace, "twice.prose"), "agent writer:\n  model: opus\nagent writer:\n  model: haiku\n");
    const text = prosec(["check", "twice.prose"], workspace);
    expect(text.stdout).toContain("help: rename one of the two agents\n  note: twice.prose:1:7 first defined here\n");
    const json = JSON.parse(prosec(["check", "twice.prose", "--format", "json"], workspace).stdout) as {
      files: { diagnostics: unknown[] }[];
    };
    expect(json.files[0]!.diagnostics).toEqual([
      {
        code: "E006",
        severity: "error",
        message: "agent `writer` is already defined on line 1",
        line: 3,
        column: 7,
        endLine: 3,
        endColumn: 13,
        hint: "rename one of the two agents",
        related: [{ message: "first defined here", line: 1, column: 7, endLine: 1, endColumn: 13 }],
      },
    ]);
  });

  it("exits 2 with a clear message for a missing path, a usage error or no command", () => {
    const missing = prosec(["check", "nope.prose"], workspace);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("prosec: nope.prose: no such file or folder\n");
    expect(prosec(["check"], workspace).status).toBe(2);
    expect(prosec(["check", "good.prose", "--format", "xml"], workspace).status).toBe(2);
    const none = prosec([], workspace);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("name a command");
  });

  it("exits 2 for a folder without programs", () => {
    mkdirSync(join(workspace, "empty"), { recursive: true });
    const result = prosec(["check", "empty"], workspace);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("prosec: empty: no .prose files in this folder\n");
  });

  it("reports analysis warnings, and --strict turns them into errors", () => {
    writeFileSync(join(workspace, "warn.prose"), 'session "Hello {nobody}"\n');
    const relaxed = prosec(["check", "warn.prose"], workspace);
    expect(relaxed.status).toBe(0);
    expect(relaxed.stdout).toContain(
      "warn.prose:1:16 warning P002 `{nobody}` names no binding, so it stays literal text",
    );
    const strict = prosec(["check", "warn.prose", "--strict"], workspace);
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain("warn.prose:1:16 error P002");
  });

  it("--help and --version", () => {
    const help = prosec(["--help"], workspace);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("prosec check <paths..>");
    const version = prosec(["--version"], workspace);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("never prints a stack trace for bad input", () => {
    writeFileSync(join(workspace, "garbage.prose"), '\u0000\t"""\n***\n((( """ ]] } @@@');
    const result = prosec(["check", "garbage.prose"], workspace);
    expect(result.status).toBe(1);
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /);
  });
});
