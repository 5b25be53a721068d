import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  editFileTool,
  fetchUrlTool,
  listFilesTool,
  readFileTool,
  searchFilesTool,
} from "../../runtime/tools/builtin.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import type { ToolContext } from "../../runtime/types.js";
import type { Permissions } from "../../runtime/types.js";
import { temporaryFolder } from "./helpers.js";

function contextFor(cwd: string, permissions?: Permissions): ToolContext {
  return { cwd, signal: new AbortController().signal, permissions: new PermissionGuard(cwd, permissions, undefined) };
}

function project(): string {
  const cwd = temporaryFolder();
  mkdirSync(join(cwd, "src"));
  mkdirSync(join(cwd, "node_modules"));
  writeFileSync(join(cwd, "src", "a.ts"), "const a = 1;\nexport const answer = 42;\n");
  writeFileSync(join(cwd, "src", "b.ts"), "export const other = 'answer';\n");
  writeFileSync(join(cwd, "node_modules", "skip.js"), "answer");
  writeFileSync(join(cwd, "README.md"), "# readme\n");
  return cwd;
}

describe("built-in file tools", () => {
  it("edit_file replaces one unique occurrence and refuses ambiguous or missing text", async () => {
    const cwd = project();
    const context = contextFor(cwd);
    await editFileTool.run({ path: "src/a.ts", old_text: "answer = 42", new_text: "answer = 43" }, context);
    expect(readFileSync(join(cwd, "src/a.ts"), "utf8")).toContain("answer = 43");
    await expect(
      editFileTool.run({ path: "src/a.ts", old_text: "nothing like this", new_text: "x" }, context),
    ).rejects.toThrow(/not found/);
    writeFileSync(join(cwd, "twice.txt"), "x x");
    await expect(editFileTool.run({ path: "twice.txt", old_text: "x", new_text: "y" }, context)).rejects.toThrow(
      /more than once/,
    );
  });

  it("list_files and search_files skip node_modules and files the agent may not read", async () => {
    const cwd = project();
    const listed = await listFilesTool.run({}, contextFor(cwd, { read: ["src/**", "README.md"] }));
    expect(listed.split("\n").sort()).toEqual(["README.md", "src/a.ts", "src/b.ts"]);
    const found = await searchFilesTool.run({ pattern: "answer" }, contextFor(cwd, { read: ["src/a.ts"] }));
    expect(found).toBe("src/a.ts:2: export const answer = 42;");
    await expect(readFileTool.run({ path: "src/b.ts" }, contextFor(cwd, { read: ["src/a.ts"] }))).rejects.toThrow(
      /not permitted/,
    );
  });

  it("fetch_url fetches only URLs the network patterns allow", async () => {
    const site = createServer((_request, response) => response.end("page body"));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      const context = contextFor(temporaryFolder(), { network: [`${base}/allowed/*`] });
      expect(await fetchUrlTool.run({ url: `${base}/allowed/page` }, context)).toBe("HTTP 200\n\npage body");
      await expect(fetchUrlTool.run({ url: `${base}/private` }, context)).rejects.toThrow(
        /none of this agent's network patterns/,
      );
    } finally {
      site.close();
    }
  });
});
