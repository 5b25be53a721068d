/**
 * A first `prosec run` as a new user meets it: with no API key it says what to set and makes no run
 * folder; a keyless compatible server (ANTHROPIC_BASE_URL alone) is reached without credentials; and
 * a program that declares no outputs shows its final result; a server it cannot reach is named; a key
 * the server refuses (401) or a model id it does not serve (404) is named with the setting to change.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "../runtime/helpers.js";

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** No credentials at all (undefined leaves a variable out of the child's environment), and a home whose SDK config folder is empty. */
function bareEnvironment(cwd: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: cwd, XDG_CONFIG_HOME: join(cwd, ".config") };
  for (const name of Object.keys(process.env)) if (name.startsWith("ANTHROPIC_")) env[name] = undefined;
  return { ...env, ...extra };
}

async function prosec(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Exit> {
  const { status, stdout, stderr } = await startProsec(args, cwd, env).exit;
  return { code: status, stdout, stderr };
}

function hello(): string {
  const cwd = temporaryFolder("prosec-first-run-");
  writeFileSync(join(cwd, "hello.prose"), 'session "Say hello"\n');
  return cwd;
}

describe("a first prosec run", () => {
  it("without an API key: one line naming what to set, exit usage, and no run folder", async () => {
    const cwd = hello();
    const exit = await prosec(cwd, ["run", "hello.prose"], bareEnvironment(cwd));
    expect(exit.code).toBe(EXIT.usage);
    expect(exit.stderr).toBe(
      "prosec: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a compatible server)\n",
    );
    expect(exit.stdout).toBe("");
    // The compiled module may be kept in .prose/cache/ (the module cache); no run was started.
    expect(existsSync(join(cwd, ".prose", "runs"))).toBe(false);
  });

  it("prosec worker says the same before it touches the database", async () => {
    const cwd = hello();
    // Nothing listens there: a worker that went on would fail on the database instead.
    const exit = await prosec(
      cwd,
      ["worker", "hello.prose"],
      bareEnvironment(cwd, { DBOS_SYSTEM_DATABASE_URL: "postgresql://postgres@127.0.0.1:9/none" }),
    );
    expect(exit.code).toBe(EXIT.usage);
    expect(exit.stderr).toBe(
      "prosec: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a compatible server)\n",
    );
  });

  it("a program without outputs prints its final result on stdout (and in the --json outputs line)", async () => {
    const server = await startFakeAnthropic({ respond: () => reply.text("Hello! I am the model.") });
    servers.push(server);
    const cwd = hello();
    const env = bareEnvironment(cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url });
    const text = await prosec(cwd, ["run", "hello.prose"], env);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toBe("Hello! I am the model.\n");
    expect(text.stderr).toMatch(/✓ .*Say hello/);
    // `prosec run` runs from the bundle (scripts/bundle-run.mjs): the program imports the bundle's runtime,
    // the same instance as the run's own code (a second instance would lose the step context).
    const modules = join(cwd, ".prose", "cache", "modules");
    const cached = readdirSync(modules).map((name) => readFileSync(join(modules, name), "utf8"));
    expect(cached.join("\n")).toMatch(/from "file:\/\/\/.*\/(dist|\.dist\/[^/]+)\/src\/bundle\/runtime\.js";/);

    const json = await prosec(cwd, ["run", "hello.prose", "--format", "json"], env);
    const last = JSON.parse(json.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
    expect(last).toEqual({ type: "outputs", runId: expect.any(String), outputs: {}, result: "Hello! I am the model." });
  });

  it("a program with outputs prints only its outputs", async () => {
    const server = await startFakeAnthropic({ respond: () => reply.text("the answer") });
    servers.push(server);
    const cwd = temporaryFolder("prosec-first-run-");
    writeFileSync(
      join(cwd, "answer.prose"),
      'session "Warm up"\noutput answer = session "Answer"\nsession "Say goodbye"\n',
    );
    const exit = await prosec(
      cwd,
      ["run", "answer.prose"],
      bareEnvironment(cwd, { ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: server.url }),
    );
    expect(exit.code).toBe(EXIT.ok);
    expect(exit.stdout).toBe("## answer\n\nthe answer\n\n");
  });

  it("ANTHROPIC_BASE_URL alone reaches a keyless compatible server, sending no credentials", async () => {
    const server = await startFakeAnthropic({ respond: () => reply.text("local hello") });
    servers.push(server);
    const cwd = hello();
    const exit = await prosec(cwd, ["run", "hello.prose"], bareEnvironment(cwd, { ANTHROPIC_BASE_URL: server.url }));
    expect(exit.stderr).not.toContain("Could not resolve authentication");
    expect(exit.code).toBe(EXIT.ok);
    expect(exit.stdout).toBe("local hello\n");
    expect(server.requests[0]!.headers["authorization"]).toBeUndefined();
    expect(server.requests[0]!.headers["x-api-key"]).toBeUndefined();
  });

  it("a server that cannot be reached is named (its password masked), with what to check", async () => {
    const cwd = hello();
    const closed = await startFakeAnthropic();
    const { port } = new URL(closed.url);
    await closed.close();
    const url = `http://prosec:hunter2@127.0.0.1:${port}`;
    const exit = await prosec(cwd, ["run", "hello.prose"], bareEnvironment(cwd, { ANTHROPIC_BASE_URL: url }));
    expect(exit.code).toBe(EXIT.network);
    expect(exit.stderr).toContain(
      `prosec: cannot reach the model server at http://prosec:***@127.0.0.1:${port}/ (ANTHROPIC_BASE_URL): check that it runs and that this machine can connect to it\n`,
    );
    expect(exit.stderr).not.toContain("hunter2");
    expect(exit.stderr.trimEnd().split("\n").at(-1)).toMatch(/^Resume with: prosec run hello\.prose --resume \S+$/);
  });

  it("a key the server refuses (401) names the variable to check, exit failed", async () => {
    const server = await startFakeAnthropic({
      respond: () => reply.error(401, { message: "invalid x-api-key" }),
    });
    servers.push(server);
    const cwd = hello();
    const env = bareEnvironment(cwd, { ANTHROPIC_API_KEY: "sk-ant-typo", ANTHROPIC_BASE_URL: server.url });
    const exit = await prosec(cwd, ["run", "hello.prose"], env);
    expect(exit.code).toBe(EXIT.failed);
    expect(exit.stderr).toContain(
      "prosec: the model server refused the credentials (401): check ANTHROPIC_API_KEY (it is set, to a key that server does not accept)\n",
    );
    expect(exit.stderr).not.toContain("sk-ant-typo");
  });

  it("a model id the server does not serve (404) is named, with where to fix it", async () => {
    const server = await startFakeAnthropic({
      respond: (request) => reply.error(404, { message: `model: ${(request.body as { model: string }).model}` }),
    });
    servers.push(server);
    const cwd = temporaryFolder("prosec-first-run-");
    writeFileSync(join(cwd, "typo.prose"), 'output greeting = session "Say hello"\n  model: "claude-sonet-4"\n');
    const exit = await prosec(cwd, ["run", "typo.prose"], bareEnvironment(cwd, { ANTHROPIC_BASE_URL: server.url }));
    expect(exit.code).toBe(EXIT.failed);
    expect(exit.stderr).toContain(
      'prosec: the model server has no model "claude-sonet-4" (404): check the id a `model:` of the program gives, or set the id sonnet, opus or haiku stands for (PROSEC_MODEL_SONNET=...)\n',
    );
  });

  it("a base URL ending in /v1 (which the SDK adds) that the server answers 404 says to drop it", async () => {
    const server = await startFakeAnthropic({ respond: () => reply.error(404, { message: "Not Found" }) });
    servers.push(server);
    const cwd = hello();
    const env = bareEnvironment(cwd, { ANTHROPIC_BASE_URL: `${server.url}/v1` });
    const exit = await prosec(cwd, ["run", "hello.prose"], env);
    expect(exit.code).toBe(EXIT.failed);
    expect(exit.stderr).toContain(
      `prosec: the model server answered 404: ANTHROPIC_BASE_URL ends with /v1, which the SDK adds itself: set it to ${server.url}/\n`,
    );
  });

  it("a request the server turns down for what it asks (400) gets no such hint", async () => {
    const server = await startFakeAnthropic({
      respond: () => reply.error(400, { message: "model: max_tokens too large" }),
    });
    servers.push(server);
    const cwd = hello();
    const exit = await prosec(cwd, ["run", "hello.prose"], bareEnvironment(cwd, { ANTHROPIC_BASE_URL: server.url }));
    expect(exit.code).toBe(EXIT.failed);
    expect(exit.stderr).not.toMatch(/^prosec: /m);
  });
});
