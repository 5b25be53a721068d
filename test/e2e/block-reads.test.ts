/**
 * A name bound only inside a block, read inside another block's body (DIALECT.md, "Scoping and
 * names"): warning P019, and the read gives the value the binding block's last finished call left.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { loadProgram, removeTemporaryFolders, TEST_API_KEY, temporaryFolder } from "./harness.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(removeTemporaryFolders);

const lines = (...source: string[]) => `${source.join("\n")}\n`;

const program = lines(
  "block survey():",
  '  session "Survey the users"',
  "    context: access",
  "",
  "block authenticate():",
  '  access = session "Get an access token"',
  "",
  "do authenticate()",
  "do survey()",
);

describe("reading another block's binding", () => {
  it("is warning P019 where it is read (the reading block defined first), not `access is not defined`", async () => {
    const { diagnostics } = await compile(program, "survey.prose");
    expect(
      diagnostics.map(
        (diagnostic) =>
          `${diagnostic.code} ${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.message}`,
      ),
    ).toEqual(["P019 3:14 `access` is bound inside block `authenticate`, not here"]);
  });

  it("in a placeholder too; a name no block binds is still P001 / P002", async () => {
    const { diagnostics } = await compile(
      lines(
        "block a():",
        '  session "Use {token} and {nothing}"',
        "  session: writer",
        "    context: missing",
        "block b():",
        '  token = "t"',
        "agent writer:",
        '  prompt: "Write"',
      ),
      "names.prose",
    );
    expect(
      diagnostics.map(
        (diagnostic) => `${diagnostic.code} ${diagnostic.range.start.line}:${diagnostic.range.start.column}`,
      ),
    ).toEqual(["P019 2:17", "P002 2:28", "P001 4:14"]);
  });

  it("gives the reading block what the binding block's last finished call bound, null before any call", async () => {
    server = await startFakeAnthropic({
      respond: (request) => reply.text(`R(${lastUserText(request).split("\n").at(-1)})`),
    });
    const loaded = await loadProgram(lines("do survey()", program), "survey.prose");
    await loaded.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-reads-"), maxRetries: 0 },
    );
    const surveys = server.requests.filter((request) => lastUserText(request).endsWith("Survey the users"));
    expect(surveys.map((request) => lastUserText(request))).toEqual([
      expect.stringMatching(/^## Context\n\n### access\n\n\n\nExecution scope:/),
      expect.stringMatching(/^## Context\n\n### access\n\nR\(Get an access token\)\n\nExecution scope:/),
    ]);
  });
});
