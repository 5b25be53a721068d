/**
 * Agent Skills (`skills:`): resolved from `skills/`, then `.claude/skills/`, then `~/.claude/skills/`;
 * listed with their descriptions in the system prompt; read with `read_skill`, which reads nothing
 * outside the skill's folder; a skill not installed is said once and the session runs without it;
 * an edited skill re-runs the steps that use it on resume, and nothing else.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Runtime, SessionRequest } from "../../runtime/index.js";
import { installedSkills, resolveSkill, skillListing } from "../../runtime/tools/skills.js";
import { reply, turnOf } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { at, runAgainst, temporaryFolder } from "./helpers.js";

const serve = fakeServersPerTest();

const REVIEW = `---
name: code-review
description: Reviews a change for bugs and unclear names
---
# Code review

Run scripts/check.sh, then read the diff.
`;

/** A project with skills/code-review (and a secret beside it), and a home with ~/.claude/skills/notes. */
function project(): { cwd: string; home: string } {
  const cwd = temporaryFolder("prosec-skills-");
  const home = temporaryFolder("prosec-skills-home-");
  mkdirSync(join(cwd, "skills", "code-review", "scripts"), { recursive: true });
  writeFileSync(join(cwd, "skills", "code-review", "SKILL.md"), REVIEW);
  writeFileSync(join(cwd, "skills", "code-review", "scripts", "check.sh"), "echo checked\n");
  writeFileSync(join(cwd, "secret.txt"), "CANARY-SKILL-SECRET");
  symlinkSync(join(cwd, "secret.txt"), join(cwd, "skills", "code-review", "leak.md"));
  mkdirSync(join(home, ".claude", "skills", "notes"), { recursive: true });
  writeFileSync(join(home, ".claude", "skills", "notes", "SKILL.md"), "---\ndescription: Takes notes\n---\nbody\n");
  return { cwd, home };
}

const reviewing = (rt: Runtime, extra: Partial<SessionRequest> = {}): Promise<string> =>
  rt.session({ at: at(1), binding: "review", prompt: "Review", skills: ["code-review", "notes", "absent"], ...extra });

describe("Agent Skills", () => {
  it("resolves in order, lists name and description in the system prompt, and says once that a skill is missing", async () => {
    const { cwd, home } = project();
    expect(installedSkills(cwd, home)).toEqual(["code-review", "notes"]);
    expect(resolveSkill("notes", cwd, home)).toMatchObject({ name: "notes", description: "Takes notes" });
    const server = await serve(() => reply.text("reviewed"));
    const { events } = await runAgainst(
      server,
      async (rt) => {
        await reviewing(rt);
        await reviewing(rt, { at: at(2), binding: "again" });
      },
      { cwd, homeDir: home },
    );
    const system = JSON.stringify(server.requests[0]!.body!.system);
    expect(system).toContain("- code-review: Reviews a change for bugs and unclear names");
    expect(system).toContain("- notes: Takes notes");
    expect(system).not.toContain("absent");
    const tools = (server.requests[0]!.body as unknown as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toContain("read_skill");
    const notices = events.filter((event) => event.type === "notice" && event.message.includes('"absent"'));
    expect(notices).toHaveLength(1);
  });

  it("lists a skill within the format's limits (64-character name, 1,024-character description): what the cost bound counts", () => {
    const listing = skillListing([
      { name: "n".repeat(100), description: `${"d".repeat(2000)}\nsecond line`, folder: "/x", digest: "" },
    ]);
    const line = listing.split("\n")[1]!;
    expect(line).toBe(`- ${"n".repeat(64)}: ${"d".repeat(1024)}`);
  });

  it("a SKILL.md that is a link out of its folder is no skill: nothing it leads to reaches the model", async () => {
    const { cwd, home } = project();
    // A hostile repository's skills: the file its description would be read from is a secret.
    for (const [name, target] of [
      ["environ", "/proc/self/environ"],
      ["secret", join(cwd, "secret.txt")],
    ] as const) {
      mkdirSync(join(cwd, "skills", name));
      symlinkSync(target, join(cwd, "skills", name, "SKILL.md"));
      expect(resolveSkill(name, cwd, home), name).toBeUndefined();
    }
    // A link that stays inside the skill's folder is read.
    mkdirSync(join(cwd, "skills", "linked"));
    writeFileSync(join(cwd, "skills", "linked", "body.md"), "---\ndescription: Linked inside\n---\n");
    symlinkSync("body.md", join(cwd, "skills", "linked", "SKILL.md"));
    expect(resolveSkill("linked", cwd, home)).toMatchObject({ description: "Linked inside" });
    const server = await serve(() => reply.text("reviewed"));
    await runAgainst(
      server,
      (rt) => rt.session({ at: at(1), binding: "review", prompt: "Review", skills: ["environ", "secret", "linked"] }),
      { cwd, homeDir: home },
    );
    const system = JSON.stringify(server.requests[0]!.body!.system);
    expect(system).toContain("- linked: Linked inside");
    expect(system).not.toContain("CANARY-SKILL-SECRET");
    expect(system).not.toMatch(/PATH=|HOME=/);
  });

  it("read_skill reads the skill's files and nothing outside its folder", async () => {
    const { cwd, home } = project();
    const calls = [
      { skill: "code-review" },
      { skill: "code-review", path: "scripts/check.sh" },
      { skill: "code-review", path: "scripts" },
      { skill: "code-review", path: "../../secret.txt" },
      { skill: "code-review", path: join(cwd, "secret.txt") },
      { skill: "code-review", path: "leak.md" },
      { skill: "notes", path: "../code-review/SKILL.md" },
      { skill: "absent" },
    ];
    const server = await serve((request) =>
      turnOf(request) === 0 ? reply.toolUse(calls.map((input) => ({ name: "read_skill", input }))) : reply.text("done"),
    );
    await runAgainst(server, (rt) => reviewing(rt), { cwd, homeDir: home });
    const answered = server.requests[1]!.body!.messages.at(-1)!.content as Array<Record<string, unknown>>;
    const results = answered.map((block) => [block["is_error"] === true, String(block["content"])]);
    expect(results[0]).toEqual([
      false,
      `[The skill's folder is ${realpathSync(join(cwd, "skills", "code-review"))}: run its scripts from there with run_command.]\n${REVIEW}`,
    ]);
    expect(results[1]).toEqual([false, "echo checked\n"]);
    expect(results[2]).toEqual([false, "scripts/check.sh"]);
    for (const refused of results.slice(3)) expect(refused[0]).toBe(true);
    expect(JSON.stringify(results)).not.toContain("CANARY-SKILL-SECRET");
    expect(results[5]![1]).toContain("leads outside the skill's folder");
  });

  it("a typed session whose only other tool is read_skill is not forced to answer first: it reads, then answers", async () => {
    const { cwd, home } = project();
    const server = await serve((request) =>
      turnOf(request) === 0
        ? reply.toolUse([{ name: "read_skill", input: { skill: "code-review" } }])
        : reply.toolUse([{ name: "answer", input: { answer: { verdict: "ok" } } }]),
    );
    const { result } = await runAgainst(
      server,
      (rt) =>
        rt.session({
          at: at(1),
          binding: "review",
          prompt: "Review",
          skills: ["code-review"],
          permissions: { read: [], write: [] },
          returns: { type: "object", properties: { verdict: { type: "string" } }, required: ["verdict"] },
        }),
      { cwd, homeDir: home },
    );
    expect(result).toEqual({ verdict: "ok" });
    const first = server.requests[0]!.body as unknown as { tools: Array<{ name: string }>; tool_choice?: unknown };
    expect(first.tools.map((tool) => tool.name)).toEqual(["read_skill", "answer"]);
    expect(first.tool_choice).toBeUndefined();
    const read = server.requests[1]!.body!.messages.at(-1)!.content as Array<Record<string, unknown>>;
    expect(String(read[0]!["content"])).toMatch(/^\[The skill's folder is .*\]\n/);
    expect(String(read[0]!["content"]).endsWith(REVIEW)).toBe(true);
  });

  it("an edited SKILL.md re-runs the sessions that use it on resume, and nothing else", async () => {
    const { cwd, home } = project();
    const runDir = join(cwd, ".prose", "runs", "run");
    const runId = "20260101-000000-000058";
    const body = async (rt: Runtime): Promise<string> => {
      await rt.session({ at: at(1), binding: "plain", prompt: "Plain work" });
      return reviewing(rt, { at: at(2) });
    };
    await runAgainst(await serve(() => reply.text("first")), body, { cwd, homeDir: home, runDir, runId });

    const unchanged = await serve(() => reply.text("second"));
    await runAgainst(unchanged, body, { cwd, homeDir: home, runDir, runId, resume: true });
    expect(unchanged.requests).toHaveLength(0);

    writeFileSync(join(cwd, "skills", "code-review", "SKILL.md"), REVIEW.replace("unclear names", "races"));
    const edited = await serve(() => reply.text("third"));
    const { result } = await runAgainst(edited, body, { cwd, homeDir: home, runDir, runId, resume: true });
    expect(result).toBe("third");
    expect(edited.requests).toHaveLength(1);
    expect(JSON.stringify(edited.requests[0]!.body!.system)).toContain("bugs and races");
  });
});
