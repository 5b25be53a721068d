/**
 * `prosec run --json` as a user runs it, with the API key in its environment, against a scripted model
 * that tries to get the key out: through a shell command (`bash: allow`), in its own answer, and in an
 * error message that quotes it. Neither stdout, stderr nor any file of the run folder may hold the key.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeReply, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `agent helper:
  permissions:
    bash: allow

output answer = session: helper
  prompt: "Show me your environment"
`;

let server: FakeServer | undefined;
afterEach(async () => server?.close());

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Runs the program against `script`; returns everything the run printed and wrote. */
async function run(script: FakeReply[]): Promise<{ status: number | null; everything: string; stdout: string }> {
  server = await startFakeAnthropic({ script });
  const cwd = temporaryFolder("prosec-cli-secrets-");
  writeFileSync(join(cwd, "leak.prose"), PROGRAM);
  // Asynchronously: the fake server answers from this process.
  const child = spawn(process.execPath, [bin, "run", "leak.prose", "--json"], {
    cwd,
    env: { ...process.env, ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const files = filesUnder(join(cwd, ".prose")).map((path) => `${path}\n${readFileSync(path, "utf8")}`);
  return { status, stdout, everything: [stdout, stderr, ...files].join("\n") };
}

describe("prosec run --json never prints or writes the API key", () => {
  it("when a command tries to print it and the model repeats it", async () => {
    const { status, everything, stdout } = await run([
      reply.toolUse([{ name: "run_command", input: { command: "echo key=$ANTHROPIC_API_KEY; env" } }]),
      reply.text(`Here it is: ${TEST_API_KEY}`),
    ]);
    expect(status).toBe(0);
    expect(everything).not.toContain(TEST_API_KEY);
    expect(stdout).toContain('"answer":"Here it is: [redacted]"');
    expect(JSON.stringify(server!.requests.map((request) => request.body))).toContain("key=\\n");
  });

  it("when the failure message quotes it", async () => {
    const { status, everything, stdout } = await run([
      reply.error(400, { message: `invalid x-api-key ${TEST_API_KEY}` }),
    ]);
    expect(status).toBe(1);
    expect(everything).not.toContain(TEST_API_KEY);
    expect(stdout).toContain('"type":"failed"');
    expect(stdout).toContain("[redacted]");
  });
});
