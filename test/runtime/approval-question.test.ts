/**
 * `prosec run` on a terminal: the question a person answers about a call an explicit `prompt` puts
 * to them (yes / no / always for this run), and that `RunOptions.onApproval` is asked about explicit
 * prompts only (never about the implicit default of `bash:`).
 */
import { PassThrough } from "node:stream";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionRequest } from "../../runtime/index.js";
import { approvalQuestion } from "../../src/run/approval-question.js";
import { reply, startFakeAnthropic, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "./helpers.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A terminal whose person types `answers`, one line each time a question is shown. */
function terminal(answers: string[]): { input: PassThrough; output: PassThrough; shown: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => {
    shown += chunk.toString();
    if (shown.endsWith("for this run: ")) input.write(`${answers.shift() ?? ""}\n`);
  });
  return { input, output, shown: () => shown };
}

const request = (tool: string, detail: string): PermissionRequest => ({ tool, detail, agent: "maker" });

describe("asking on a terminal", () => {
  it("yes, no, always for this run (then not asked again for that tool), and again on a word it does not know", async () => {
    const screen = terminal(["y", "no", "maybe", "a"]);
    const ask = approvalQuestion(screen, new AbortController().signal);
    expect(await ask(request("run_command", "mkdir a"))).toBe(true);
    expect(await ask(request("run_command", "mkdir b"))).toBe(false);
    expect(await ask(request("fetch_url", "https://example.org/"))).toBe(true);
    expect(await ask(request("fetch_url", "https://example.org/other"))).toBe(true);
    expect(screen.shown().match(/Allow\?/g)).toHaveLength(4);
    expect(screen.shown()).toContain("Agent maker asks to use run_command: mkdir a\n");
  });

  it("onApproval is asked about an explicit prompt, never about the implicit bash default", async () => {
    const turnOf = (r: FakeRequest): number => (r.body?.messages ?? []).filter((m) => m.role === "assistant").length;
    const server = await startFakeAnthropic({
      respond: (r) =>
        turnOf(r) === 0 ? reply.toolUse([{ name: "run_command", input: { command: "mkdir made" } }]) : reply.text("ok"),
    });
    servers.push(server);
    const asked: string[] = [];
    const onApproval = (r: PermissionRequest): boolean => {
      asked.push(r.detail);
      return true;
    };
    const cwd = temporaryFolder("prosec-approval-question-");
    // `write: prompt` puts writes to a person; the command under the implicit bash default is refused unasked.
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "Go", permissions: { ask: ["write"] } }), {
      cwd,
      onApproval,
      sandbox: "off",
    });
    expect(asked).toEqual([]);
    expect(existsSync(join(cwd, "made"))).toBe(false);
    await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "Go", permissions: { bash: "prompt" } }), {
      cwd,
      onApproval,
      sandbox: "off",
    });
    expect(asked).toEqual(["mkdir made"]);
    expect(existsSync(join(cwd, "made"))).toBe(true);
  });
});
