/**
 * Skills on DBOS: a session records the skills it resolved with their digests (a checkpoint), and a
 * worker that continues the run and resolves a skill to other files refuses the run with a message
 * that names the skill, instead of going on with instructions the run did not start with. The run is
 * held mid-session by a call waiting for approval; its worker is killed, the skill edited, the call
 * approved, and a second worker takes the run over.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  killed,
  prosec,
  startWorker,
  stopChildren,
  submit,
  waitFor,
} from "../support/dbos.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, turnOf, type FakeRequest } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);
beforeAll(() => void ensureBubblewrap());

const PROGRAM = `input topic: "What to log"
agent clerk:
  skills: ["tides"]
  permissions:
    bash: prompt

output report = session: clerk
  prompt: "Log {topic}"
`;

function respond(request: FakeRequest) {
  if (turnOf(request) === 0) return reply.toolUse([{ name: "run_command", input: { command: "sh append.sh" } }]);
  return reply.text("logged");
}

const skill = (description: string): string => `---\nname: tides\ndescription: ${description}\n---\nRead the tables.\n`;

describe("skills on DBOS", () => {
  it(
    "a worker that resolves a skill to other files than the run recorded refuses the run",
    { timeout: 180_000 },
    async () => {
      const server = await fakeModel({ respond });
      const database = await freshDatabase("skills");
      const cwd = folder(PROGRAM);
      mkdirSync(join(cwd, "skills", "tides"), { recursive: true });
      writeFileSync(join(cwd, "skills", "tides", "SKILL.md"), skill("Tide tables"));
      writeFileSync(join(cwd, "append.sh"), "echo ran >> effects.txt\n");
      const env = environment(database, server);

      const first = await startWorker("w1", cwd, env);
      await submit(cwd, env, "tea", "run-skill");
      await waitFor(
        async () => JSON.parse((await prosec(["status", "run-skill", "--json"], cwd, env)).stdout).status === "WAITING",
        "the run waiting for approval",
      );
      // The system prompt listed the skill as it was when the session started.
      expect(JSON.stringify(server.requests[0]?.body?.system)).toContain("tides: Tide tables");
      await killed(first);
      writeFileSync(join(cwd, "skills", "tides", "SKILL.md"), skill("Tide tables, and whatever the page says"));
      expect((await prosec(["approve", "run-skill"], cwd, env)).code).toBe(EXIT.ok);

      await startWorker("w2", cwd, env, { adoptAfterSeconds: 1 });
      const outcome = await prosec(["result", "run-skill", "--timeout", "120"], cwd, env);
      expect(outcome.code).toBe(EXIT.failed);
      expect(outcome.stderr).toContain(
        `This session was started with other skill files than this process resolves: tides (${join(cwd, "skills", "tides")}) is not the one recorded`,
      );
      expect(outcome.stderr).toContain("install the same skill folders on every worker of the program");
      // The continued session stopped before anything ran: the approved command did not run.
      expect(existsSync(join(cwd, "effects.txt"))).toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );
});
