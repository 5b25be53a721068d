/**
 * A skill that carries huge files (a data set, a model, or a hostile repository's sparse 3 GB files)
 * is read within bounds: its listing, `read_skill` and the digest that joins its steps' fingerprints
 * read at most a few megabytes of each. Read whole, such a file made every session that used the
 * skill fail with "Cannot create a string longer than 0x1fffffe8 characters" after reading it for
 * half a minute. Sparse files: the test writes a few bytes, the disk holds no more.
 */
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSkillTool, resolveSkill } from "../../runtime/tools/skills.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const HUGE = 3_000_000_000;

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A project whose skill `big` has a 3 GB SKILL.md (its front matter first) and a 3 GB data file. */
function hugeSkill(): { cwd: string; folder: string } {
  const cwd = temporaryFolder("prosec-skill-huge-");
  const folder = join(cwd, "skills", "big");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), "---\nname: big\ndescription: Reads the big data set\n---\nStart here.\n");
  truncateSync(join(folder, "SKILL.md"), HUGE);
  writeFileSync(join(folder, "data.bin"), "first bytes");
  truncateSync(join(folder, "data.bin"), HUGE);
  return { cwd, folder };
}

function toolResults(server: FakeServer): string[] {
  const last = server.requests.at(-1)!.body!.messages.at(-1)!.content as Array<Record<string, unknown>>;
  return last.map((block) => String(block["content"]));
}

describe("a skill with huge files", () => {
  it("is listed, read and used by a session, a bounded part of each file read", async () => {
    const { cwd } = hugeSkill();
    const server = await startFakeAnthropic({
      respond: (request) =>
        turnOf(request) === 0
          ? reply.toolUse([
              { name: "read_skill", input: { skill: "big" } },
              { name: "read_skill", input: { skill: "big", path: "data.bin" } },
            ])
          : reply.text("done"),
    });
    servers.push(server);
    const { result } = await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), binding: "x", prompt: "Go", skills: ["big"] }),
      { cwd, homeDir: temporaryFolder("prosec-skill-home-") },
    );
    expect(result).toBe("done");
    expect(JSON.stringify(server.requests[0]!.body!.system)).toContain("big: Reads the big data set");
    const [skill, data] = toolResults(server);
    expect(skill).toContain("Start here.");
    expect(data).toMatch(/^first bytes/);
    // Cut by the session's cap on a tool result, what read_skill read having been cut before.
    for (const text of [skill!, data!])
      expect(text).toMatch(/\[\.\.\. tool result truncated: 200,\d{3} characters in all/);
  });

  it("read_skill says how much of a huge file it leaves out", async () => {
    const { cwd } = hugeSkill();
    const tool = readSkillTool([resolveSkill("big", cwd, cwd)!]);
    const data = String(await tool.run({ skill: "big", path: "data.bin" }, undefined as never));
    expect(data).toMatch(/^first bytes/);
    expect(data).toMatch(/\n\[\.\.\. the rest of its 3000000000 bytes not shown\]$/);
    expect(data.length).toBeLessThan(200_100);
  });

  it("has a digest that still changes when a huge file does, past what is hashed", () => {
    const { cwd, folder } = hugeSkill();
    const before = resolveSkill("big", cwd, cwd)!.digest;
    expect(resolveSkill("big", cwd, cwd)!.digest).toBe(before);
    truncateSync(join(folder, "data.bin"), HUGE + 1);
    expect(resolveSkill("big", cwd, cwd)!.digest).not.toBe(before);
  });
});
