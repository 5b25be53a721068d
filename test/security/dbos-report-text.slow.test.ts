/**
 * The DBOS commands print a stored run's text without escape sequences, as the folder runs' reports
 * do (report-text.test.ts): a run's error quotes a model's answer (here a `throw` that quotes it) or
 * a model server's error, and `prosec result`, `prosec run --resume` and the worker's log printed it
 * as it was, so an answer could set the terminal's title, write its clipboard (OSC 52) or clear the
 * screen. `--json` keeps the text, each control escaped.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { environment, fakeModel, folder, prosec, startWorker, stopChildren, submit } from "../support/dbos.js";
import { reply } from "../support/fake-anthropic.js";
import { freshDatabase } from "../support/postgres.js";

afterEach(stopChildren);

const PROGRAM = `input topic: "What to say"

let said = session "Say {topic}"
throw "The model said: {said}"
`;

/** OSC 52 (write the clipboard), a CSI that clears the screen, and the 8-bit CSI. */
const HOSTILE = "\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007\u001b[2J\u009b31mred";

const ESCAPES = /[\u001b\u0007\u009b]/;

describe("DBOS commands and a run's hostile text", () => {
  it("result, run --resume and the worker's log print no escape sequence", { timeout: 120_000 }, async () => {
    const database = await freshDatabase("report_text");
    const server = await fakeModel({ respond: () => reply.text(`bad request ${HOSTILE} end`) });
    const cwd = folder(PROGRAM);
    const env = environment(database, server);
    const worker = await startWorker("w-text", cwd, env);
    await submit(cwd, env, "tea", "run-text");

    const result = await prosec(["result", "run-text", "--json", "--timeout", "60"], cwd, env);
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain("bad request");
    expect(result.stderr).toContain("end");
    expect(result.stderr).not.toMatch(ESCAPES);
    // --json keeps the text, each control escaped: the same JSON value, plain ASCII on the terminal.
    expect(result.stdout).not.toMatch(ESCAPES);
    const failed = JSON.parse(result.stdout) as { type: string; message: string };
    expect(failed.type).toBe("failed");
    expect(failed.message).toContain(HOSTILE);

    const resumed = await prosec(["run", "--resume", "run-text"], cwd, env);
    expect(resumed.code).toBe(EXIT.failed);
    expect(resumed.stderr).toContain("bad request");
    expect(resumed.stderr).not.toMatch(ESCAPES);

    expect(worker.log()).toContain("bad request");
    expect(worker.log()).not.toMatch(ESCAPES);
  });
});
