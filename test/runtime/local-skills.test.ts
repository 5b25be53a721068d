/**
 * The legacy `import "file-reader" from "./local-skills/file-reader"`: a local path as source is that
 * skill's folder (relative to the program's folder), resolved before the skill roots, listed in the
 * system prompt, and `read_skill` is confined to it. Other sources only register the name.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "../e2e/harness.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PROGRAM = `import "file-reader" from "./local-skills/file-reader"
import "web-search" from "github:anthropic/skills"

agent documenter:
  skills: ["file-reader"]
  permissions:
    read: deny
    write: deny
    bash: deny

output summary = session: documenter
  prompt: "Document"
`;

const SKILL = "---\nname: file-reader\ndescription: Reads files carefully\n---\nOpen, then read.\n";

describe("import of a skill from a local folder", () => {
  it("lowers the folder relative to the program's folder; other sources only register the name", () => {
    expect(lowerSource(PROGRAM, "p.prose").code).toContain(
      'skillFolders: { "file-reader": "local-skills/file-reader" }',
    );
    expect(lowerSource(PROGRAM, "docs/p.prose").code).toContain(
      'skillFolders: { "file-reader": "docs/local-skills/file-reader" }',
    );
    expect(lowerSource('import "web-search" from "github:anthropic/skills"\n', "p.prose").code).not.toContain(
      "skillFolders",
    );
  });

  it("is that folder's skill: listed, read with read_skill, and nothing outside the folder", async () => {
    const cwd = temporaryFolder("prosec-local-skill-");
    const folder = join(cwd, "local-skills", "file-reader");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "SKILL.md"), SKILL);
    writeFileSync(join(cwd, "local-skills", "secret.txt"), "CANARY-LOCAL-SKILL");
    // A skill root that has the same name is not the one imported.
    mkdirSync(join(cwd, "skills", "file-reader"), { recursive: true });
    writeFileSync(join(cwd, "skills", "file-reader", "SKILL.md"), "---\ndescription: the wrong one\n---\n");
    server = await startFakeAnthropic({
      respond: (request) =>
        turnOf(request) === 0
          ? reply.toolUse([
              { name: "read_skill", input: { skill: "file-reader" } },
              { name: "read_skill", input: { skill: "file-reader", path: "../secret.txt" } },
            ])
          : reply.text("documented"),
    });
    const program = await loadProgram(PROGRAM, "p.prose");
    const outputs = await program.run({}, { apiKey: TEST_API_KEY, baseURL: server.url, maxRetries: 0, cwd });
    expect(outputs).toEqual({ summary: "documented" });
    const system = JSON.stringify(server.requests[0]!.body!.system);
    expect(system).toContain("- file-reader: Reads files carefully");
    expect(system).not.toContain("the wrong one");
    const results = server.requests[1]!.body!.messages.at(-1)!.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(results[0]!.content).toContain(`[The skill's folder is ${realpathSync(folder)}`);
    expect(results[0]!.content).toContain("Open, then read.");
    expect(results[1]!.is_error).toBe(true);
    expect(JSON.stringify(results)).not.toContain("CANARY-LOCAL-SKILL");
  });
});
