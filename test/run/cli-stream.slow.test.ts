/**
 * `prosec run` and `prosec cost` with streaming and model fallback, as a user runs them: child processes
 * against the fake Messages API, which streams server-sent events and answers 529 for one model.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";
import { EXIT } from "../../src/exit-codes.js";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

const PROGRAM = `output summary = session "Summarise the week"
`;

const SONNET = "claude-sonnet-5-5";
const OPUS = "claude-opus-5-5";

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Sonnet is overloaded; any other model streams its answer in small pieces. */
async function overloadedSonnet(): Promise<FakeServer> {
  const server = await startFakeAnthropic({
    stream: { chunkChars: 4 },
    respond: (request: FakeRequest) =>
      request.body!.model === SONNET
        ? reply.error(529, { retryAfterSeconds: 0.01 })
        : reply.text(`${request.body!.model}: a quiet week.`),
  });
  servers.push(server);
  return server;
}

async function prosec(args: readonly string[], server: FakeServer, env: NodeJS.ProcessEnv = {}): Promise<Exit> {
  const cwd = temporaryFolder("prosec-cli-stream-");
  writeFileSync(join(cwd, "week.prose"), PROGRAM);
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: TEST_API_KEY,
      ANTHROPIC_BASE_URL: server.url,
      NO_COLOR: "1",
      PROSEC_FALLBACK: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<Exit>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const eventsOf = (stdout: string): Array<{ type: string; [key: string]: unknown }> =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string });

describe("prosec run on a terminal", () => {
  it("shows a lone session's text while it streams, before its line", { timeout: 60_000 }, async () => {
    const answer = `QZX ${"one more piece of the answer ".repeat(8)}`;
    const server = await startFakeAnthropic({
      stream: { chunkChars: 10, chunkDelayMs: 40 },
      respond: () => reply.text(answer),
    });
    servers.push(server);
    const cwd = temporaryFolder("prosec-cli-stream-");
    writeFileSync(join(cwd, "week.prose"), PROGRAM);
    const command = [process.execPath, bin, "run", "week.prose"].map((part) => `'${part}'`).join(" ");
    const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd,
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: TEST_API_KEY,
        ANTHROPIC_BASE_URL: server.url,
        NO_COLOR: "1",
        PROSEC_FALLBACK: "",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let shownAt: number | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (shownAt === undefined && output.includes("QZX")) shownAt = performance.timeOrigin + performance.now();
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code, output).toBe(EXIT.ok);
    // The first characters were on the terminal while the server was still streaming the rest.
    expect(shownAt).toBeLessThan(server.requests[0]!.stream!.endedAt!);
    const text = output.replace(/\r/g, "");
    expect(text.indexOf("Summarise the week:\nQZX one more")).toBeGreaterThan(-1);
    expect(text.indexOf("QZX")).toBeLessThan(text.indexOf("✓ 1:18 Summarise the week"));
  });
});

describe("prosec run with a fallback chain, streaming", () => {
  it(
    "--fallback moves an overloaded model's session to the next; --json --stream gives its text as delta events",
    { timeout: 60_000 },
    async () => {
      const server = await overloadedSonnet();
      const exit = await prosec(["run", "week.prose", "--fallback", "sonnet=opus", "--json", "--stream"], server);
      expect(exit.code, exit.stderr).toBe(EXIT.ok);
      const events = eventsOf(exit.stdout);
      expect(events).toContainEqual(expect.objectContaining({ type: "fallback", from: SONNET, to: OPUS }));
      const deltas = events.filter((event) => event.type === "delta");
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.map((event) => event["text"]).join("")).toBe(`${OPUS}: a quiet week.`);
      expect(deltas[0]).toEqual(expect.objectContaining({ label: "Summarise the week", model: OPUS, begins: true }));
      const end = events.find((event) => event.type === "run-end");
      expect(end?.["usage"]).toEqual([expect.objectContaining({ model: OPUS })]);
      expect(server.requests.at(-1)!.body!["stream"]).toBe(true);
    },
  );

  it(
    "PROSEC_FALLBACK does the same; the narration says who answered; --json alone and --no-stream give no deltas",
    { timeout: 60_000 },
    async () => {
      const server = await overloadedSonnet();
      const plain = await prosec(["run", "week.prose"], server, { PROSEC_FALLBACK: "opus=haiku;sonnet=opus" });
      expect(plain.code, plain.stderr).toBe(EXIT.ok);
      expect(plain.stderr).toContain(`↪ 1:18 Summarise the week: ${SONNET} (overloaded: fake 529) → ${OPUS}`);
      expect(plain.stderr).not.toContain("a quiet week");
      const json = await prosec(["run", "week.prose", "--json", "--no-stream", "--fallback", "sonnet=opus"], server);
      expect(json.code, json.stderr).toBe(EXIT.ok);
      expect(eventsOf(json.stdout).filter((event) => event.type === "delta")).toEqual([]);
      expect(server.requests.at(-1)!.body!["stream"]).toBeUndefined();
    },
  );

  it(
    "a chain that is overloaded throughout fails as one overloaded model does; a wrong chain is a usage error",
    { timeout: 60_000 },
    async () => {
      const server = await startFakeAnthropic({ respond: () => reply.error(529, { retryAfterSeconds: 0.01 }) });
      servers.push(server);
      const alone = await prosec(["run", "week.prose"], server);
      const chained = await prosec(["run", "week.prose", "--fallback", "sonnet=opus"], server);
      expect(alone.code).toBe(EXIT.failed);
      expect(chained.code).toBe(EXIT.failed);
      expect(chained.stderr).toMatch(/Summarise the week failed: 529/);
      const wrong = await prosec(["run", "week.prose", "--fallback", "sonnet"], server);
      expect(wrong.code).toBe(EXIT.usage);
      expect(wrong.stderr).toContain('--fallback sonnet: cannot read the fallback chain "sonnet"');
    },
  );

  it("prosec cost --fallback prices a chain at its most expensive model", { timeout: 60_000 }, async () => {
    const server = await overloadedSonnet();
    const alone = await prosec(["cost", "week.prose", "--json"], server);
    const chained = await prosec(["cost", "week.prose", "--json", "--fallback", "sonnet=haiku,opus"], server);
    const dollars = (exit: Exit): number =>
      (JSON.parse(exit.stdout) as { programs: [{ dollars: number }] }).programs[0].dollars;
    // Opus's list price is 5/3 of sonnet's, input and output alike.
    expect(dollars(chained) / dollars(alone)).toBeCloseTo(5 / 3, 5);
    expect(JSON.parse(chained.stdout)).toEqual(
      expect.objectContaining({ fallback: [`${SONNET} → claude-haiku-5-5, ${OPUS}`] }),
    );
    const text = await prosec(["cost", "week.prose", "--fallback", "sonnet=opus"], server);
    expect(text.stdout).toContain(`Fallback ${SONNET} → ${OPUS}: priced at the most expensive of them.`);
  });
});
