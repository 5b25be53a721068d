/**
 * A skill outside the project (`~/.claude/skills/<name>`) is bound read-only into the OS sandbox of
 * the commands of a session that uses it (bubblewrap): its scripts run through `run_command` under
 * the agent's own permissions, but cannot be written; the rest of the home stays out of sight, and
 * a session without the skill does not see its folder at all.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime/index.js";
import { reply, startFakeAnthropic, type FakeServer, turnOf } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const CANARY = "CANARY-HOME-BESIDE-SKILLS";
const SCRIPT = "echo hello from the skill\n";

function layout(): { cwd: string; home: string; folder: string } {
  const cwd = temporaryFolder("prosec-skill-sandbox-");
  const home = temporaryFolder("prosec-skill-home-");
  const folder = join(home, ".claude", "skills", "greeter");
  mkdirSync(join(folder, "scripts"), { recursive: true });
  writeFileSync(join(folder, "SKILL.md"), "---\nname: greeter\ndescription: Greets\n---\nRun scripts/hello.sh\n");
  writeFileSync(join(folder, "scripts", "hello.sh"), SCRIPT);
  writeFileSync(join(home, "secret.txt"), CANARY);
  return { cwd, home: realpathSync(home), folder: realpathSync(folder) };
}

/** The command results the model was sent after its first turn. */
async function commands(
  { cwd, home }: ReturnType<typeof layout>,
  lines: readonly string[],
  skills: readonly string[],
): Promise<string[]> {
  const server = await startFakeAnthropic({
    respond: (request) =>
      turnOf(request) === 0
        ? reply.toolUse(lines.map((command) => ({ name: "run_command", input: { command } })))
        : reply.text("done"),
  });
  servers.push(server);
  const session = (rt: Runtime): Promise<string> =>
    rt.session({
      at: at(1),
      binding: "greet",
      prompt: "Greet",
      skills,
      agent: { name: "greeter", permissions: { bash: "allow" } },
    });
  await runAgainst(server, session, { cwd, homeDir: home });
  const answered = server.requests[1]!.body!.messages.at(-1)!.content as Array<{ content: string }>;
  return answered.map((block) => String(block.content));
}

describe("a skill folder outside the project, in the sandbox", () => {
  it("is bound read-only for a session that uses it: its scripts run, writes fail, the home beside it is hidden", async () => {
    const where = layout();
    const { folder, home } = where;
    const [run, write, make, secret] = await commands(
      where,
      [
        `sh ${folder}/scripts/hello.sh`,
        `echo pwned > ${folder}/scripts/hello.sh`,
        `touch ${folder}/new.sh`,
        `cat ${home}/secret.txt`,
      ],
      ["greeter"],
    );
    expect(run).toMatch(/^exit code 0\nhello from the skill\n$/);
    expect(write).toMatch(/Read-only file system/);
    expect(make).toMatch(/Read-only file system/);
    expect(secret).toMatch(/No such file or directory/);
    expect(secret).not.toContain(CANARY);
    expect(readFileSync(join(folder, "scripts", "hello.sh"), "utf8")).toBe(SCRIPT);
  });

  it("is not there for a session without the skill", async () => {
    const where = layout();
    const [run] = await commands(where, [`sh ${where.folder}/scripts/hello.sh`], []);
    expect(run).toMatch(/No such file|can't open/);
  });
});
