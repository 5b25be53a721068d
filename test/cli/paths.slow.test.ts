import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prosec, repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

describe("prosec check paths", () => {
  it("accepts absolute paths to files and folders", () => {
    const folder = temporaryFolder("prosec-paths-");
    const file = join(folder, "broken.prose");
    writeFileSync(file, "let = 1\n");

    const byFile = prosec(["check", file, "--format", "json"], repositoryRoot);
    const byFolder = prosec(["check", folder, "--format", "json"], repositoryRoot);

    for (const result of [byFile, byFolder]) {
      expect(result.status).toBe(1);
      const report = JSON.parse(result.stdout) as {
        files: { file: string; diagnostics: { code: string; line: number }[] }[];
      };
      expect(report.files).toHaveLength(1);
      expect(report.files[0]!.file).toMatch(/broken\.prose$/);
      expect(report.files[0]!.diagnostics).toMatchObject([{ code: "E004", line: 1 }]);
    }
  });
});
