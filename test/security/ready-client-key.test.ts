/**
 * A key given another way: an application that passes `RunOptions.client` (a client it made with its
 * own key, kept out of the environment and the options). That key is the model's key all the same:
 * a tool never gets it, whatever variable `env:` names that holds it, and it is redacted from what
 * the run records and says, as a model server that echoes it in an error would otherwise have it.
 */
import Anthropic from "@anthropic-ai/sdk";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  reply,
  startFakeAnthropic,
  turnOf,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { at, failingRun, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const APP_KEY = "sk-ant-app-own-key-0123456789";
/** Where the application keeps it: a name that does not look like a secret's. */
const HOLDER = "PROSEC_TEST_MODEL_CONFIG";

const servers: FakeServer[] = [];
afterEach(async () => {
  delete process.env[HOLDER];
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function model(respond: (request: FakeRequest) => FakeReply): Promise<FakeServer> {
  const server = await startFakeAnthropic({ respond });
  servers.push(server);
  return server;
}

function readyClient(server: FakeServer): Anthropic {
  return new Anthropic({ apiKey: APP_KEY, baseURL: server.url, maxRetries: 0 });
}

describe("a ready client's key", () => {
  it("reaches no tool, even through a variable env: names", async () => {
    process.env[HOLDER] = APP_KEY;
    const cwd = temporaryFolder("prosec-ready-client-");
    const server = await model((request) =>
      turnOf(request) === 0
        ? reply.toolUse([{ name: "run_command", input: { command: `printenv ${HOLDER} > got.txt; echo written` } }])
        : reply.text("done"),
    );
    const { result } = await runAgainst(
      server,
      (rt) =>
        rt.session({
          at: at(1),
          binding: "x",
          prompt: "Go",
          agent: { name: "a", permissions: { bash: "allow", write: ["**"], env: [HOLDER] } },
        }),
      { cwd, client: readyClient(server), apiKey: undefined },
    );
    expect(result).toBe("done");
    // The command ran (the file is there), without the key.
    expect(existsSync(join(cwd, "got.txt"))).toBe(true);
    expect(readFileSync(join(cwd, "got.txt"), "utf8")).toBe("");
    expect(JSON.stringify(server.requests[0]!.headers)).toContain(APP_KEY);
  });

  it("is redacted from the failure of a model server that echoes it", async () => {
    const server = await model((request) => ({
      kind: "error",
      status: 401,
      body: {
        type: "error",
        error: { type: "authentication_error", message: `invalid credentials: ${JSON.stringify(request.headers)}` },
      },
    }));
    const { error, events } = await failingRun(server, (rt) => rt.session({ at: at(1), binding: "x", prompt: "Go" }), {
      client: readyClient(server),
      apiKey: undefined,
    });
    expect((error as Error).message).toContain("invalid credentials:");
    expect((error as Error).message).toContain("[redacted]");
    expect((error as Error).message).not.toContain(APP_KEY);
    expect(JSON.stringify(events)).not.toContain(APP_KEY);
    expect((error as Error).stack).not.toContain(APP_KEY);
  });
});
