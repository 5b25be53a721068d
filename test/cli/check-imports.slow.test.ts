import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

describe("prosec check: local imports", () => {
  it("checks calls against the programs they `use`, and reports an import it cannot read, as build does", () => {
    const folder = temporaryFolder("prosec-check-imports-");
    writeFileSync(join(folder, "lib.prose"), 'input topic: "t"\noutput report = session "On {topic}"\n');
    writeFileSync(
      join(folder, "main.prose"),
      'use "./lib" as lib\nuse "./gone"\nlet r = lib(wrong: "a")\nsession "s"\n  context: r.nope\n',
    );
    const result = prosec(["check", "--format", "json", "main.prose"], folder);
    expect(result.status).toBe(1);
    const [file] = (
      JSON.parse(result.stdout) as { files: { diagnostics: { code: string; line: number; column: number }[] }[] }
    ).files;
    expect(file!.diagnostics.map((diagnostic) => `${diagnostic.code} ${diagnostic.line}:${diagnostic.column}`)).toEqual(
      ["P030 2:5", "E026 3:9", "E027 3:13", "E028 5:14"],
    );
    const built = prosec(["build", "--check", "main.prose"], folder);
    expect(built.stdout).toContain("main.prose:3:9 error E026 program `lib` needs input `topic`");
  });
});
