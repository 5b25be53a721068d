/**
 * Approvals on DBOS (DIALECT.md, "An explicit `prompt` means a person decides, durably"): a worker
 * that reaches a call an explicit `bash: prompt` puts to a person keeps the run waiting in the
 * database with the call pending (`prosec status`, `runs show` and `view` show it); `prosec approve` /
 * `prosec deny` answer it. The worker that asked
 * is killed with SIGKILL while the runs wait; another worker adopts them, and the approved command
 * (which appends a line to a file) runs exactly once, the denied one never.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import {
  environment,
  fakeModel,
  folder,
  killed,
  prosec,
  result,
  startWorker,
  stopChildren,
  submit,
  waitFor,
} from "../support/dbos.js";
import { ensureBubblewrap } from "../support/bubblewrap.js";
import { reply, turnOf, type FakeRequest } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";
import { startViewServer } from "../../src/view/server.js";
import { openRunStore } from "../../src/runs/open-run-store.js";

afterEach(stopChildren);
beforeAll(() => void ensureBubblewrap());

const PROGRAM = `input topic: "What to log"
agent clerk:
  permissions:
    bash: prompt

output report = session: clerk
  prompt: "Log {topic}"
`;

/** The clerk runs the script once, then reports what the tool said. */
function respond(request: FakeRequest) {
  if (turnOf(request) === 0) return reply.toolUse([{ name: "run_command", input: { command: "sh append.sh" } }]);
  return reply.text(`done: ${JSON.stringify(request.body?.messages.at(-1)?.content)}`);
}

interface Status {
  readonly status: string;
  readonly waitingFor: readonly { readonly name: string; readonly prompt: string }[];
}

describe("approvals on DBOS", () => {
  it(
    "waits in the database for approval; after a kill -9, another worker runs the approved call once and reports the denied one to the model",
    { timeout: 180_000 },
    async () => {
      const server = await fakeModel({ respond });
      const database = await freshDatabase("approvals");
      const cwd = folder(PROGRAM);
      writeFileSync(join(cwd, "append.sh"), "echo ran >> effects.txt\n");
      const env = environment(database, server);
      const status = async (id: string): Promise<Status> =>
        JSON.parse((await prosec(["status", id, "--json"], cwd, env)).stdout) as Status;

      const first = await startWorker("w1", cwd, env);
      await Promise.all([submit(cwd, env, "tea", "run-yes"), submit(cwd, env, "owls", "run-no")]);
      await waitFor(
        async () => (await Promise.all([status("run-yes"), status("run-no")])).every((run) => run.status === "WAITING"),
        "two runs waiting for approval",
      );
      const waiting = await status("run-yes");
      expect(waiting.waitingFor).toEqual([
        {
          name: expect.stringMatching(/^approve_toolu_\d+$/),
          prompt: "Agent clerk asks to use run_command: sh append.sh",
          line: 6,
          column: 17,
          key: expect.stringMatching(/^\/session@6:17#0\/approval:toolu_\d+#[0-9a-f]{16}$/),
        },
      ]);
      const call = waiting.waitingFor[0]!.name.slice("approve_".length);
      const shown = await prosec(["status", "run-yes"], cwd, env);
      expect(shown.stdout).toContain("status   WAITING\n");
      expect(shown.stdout).toContain(
        `waiting  for approval of ${call} (Agent clerk asks to use run_command: sh append.sh) at line 6:17: prosec approve run-yes ${call}, or prosec deny run-yes ${call}\n`,
      );
      const steps = await prosec(["runs", "show", "run-yes"], cwd, env);
      expect(steps.stdout).toContain(
        `waiting for approval of ${call} (Agent clerk asks to use run_command: sh append.sh) at line 6:17: prosec approve run-yes ${call}, or prosec deny run-yes ${call}\n`,
      );
      const view = await startViewServer(openRunStore(cwd, { databaseUrl: database }));
      try {
        const page = await (await fetch(`${view.url}run/run-yes`)).text();
        expect(page).toContain(`waiting for approval of ${call} (Agent clerk asks to use run_command: sh append.sh)`);
      } finally {
        await view.close();
      }
      // Nothing ran before a person decided.
      expect(existsSync(join(cwd, "effects.txt"))).toBe(false);
      const requestsBefore = server.requests.length;

      // The worker that asked dies while the runs wait; the answers are kept in the database meanwhile.
      await killed(first);
      const wrongCall = await prosec(["approve", "run-yes", "toolu_0"], cwd, env);
      expect([wrongCall.code, wrongCall.stderr]).toEqual([
        EXIT.usage,
        `prosec: run run-yes is not waiting for an approval of toolu_0; it waits for: ${call} (Agent clerk asks to use run_command: sh append.sh)\n`,
      ]);
      const approved = await prosec(["approve", "run-yes"], cwd, env);
      expect([approved.code, approved.stdout]).toEqual([
        EXIT.ok,
        `approved ${call} for run run-yes; its worker goes on\n`,
      ]);
      const denied = await prosec(["deny", "run-no", "--reason", "not on a Sunday"], cwd, env);
      expect(denied.code, denied.stderr).toBe(EXIT.ok);
      expect(denied.stdout).toMatch(/^denied toolu_\d+ for run run-no; its worker goes on\n$/);
      // No worker has taken the answer yet, so the run still waits: a second approve delivers nothing more.
      const again = await prosec(["approve", "run-yes", call], cwd, env);
      expect([again.code, again.stdout]).toEqual([EXIT.ok, approved.stdout]);

      // A second worker adopts the runs of the silent one and finishes them.
      await startWorker("w2", cwd, env, { adoptAfterSeconds: 1 });
      const [yes, no] = (await Promise.all([result(cwd, env, "run-yes"), result(cwd, env, "run-no")])) as {
        report: string;
      }[];
      expect(yes!.report).toContain("exit code 0");
      expect(yes!.report).not.toContain("is_error");
      expect(no!.report).toContain("A person refused run_command: sh append.sh (not on a Sunday)");
      expect(no!.report).toContain('"is_error":true');
      // The approved command ran once, whichever worker held the run; the denied one never.
      expect(readFileSync(join(cwd, "effects.txt"), "utf8")).toBe("ran\n");
      // The adopting worker asked the model only the turns that had not finished: one per run.
      expect(server.requests.length - requestsBefore).toBe(2);
    },
  );
});
