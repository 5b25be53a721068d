/**
 * A name bound only inside a block, read inside another block's body (DIALECT.md, "Scoping and
 * names"): warning P019, and the read gives the value the binding block's last finished call left.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { lastUserText, reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

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

  it("parallel calls: the call that finished last is journaled, so a resumed run reads the same value", async () => {
    const source = lines(
      "block fetch(source):",
      '  page = session "Fetch {source}"',
      "parallel:",
      '  do fetch("slow")',
      '  do fetch("fast")',
      'output read = session "Read it"',
      "  context: page",
    );
    // The slow call finishes last; replayed, both finish at once (the fast one, second, last).
    server = await startFakeAnthropic({
      respond: (request) => {
        const task = lastUserText(request).split("\n").at(-1)!;
        return reply.text(`R(${task})`, task.includes("slow") ? { delayMs: 300 } : {});
      },
    });
    const loaded = await loadProgram(source, "fetch.prose");
    const cwd = temporaryFolder("prosec-e2e-reads-");
    const runDir = join(cwd, "run");
    const first = await loaded.run({}, { apiKey: TEST_API_KEY, baseURL: server.url, cwd, maxRetries: 0, runDir });
    const read = server.requests.find((request) => lastUserText(request).endsWith("Read it"))!;
    expect(lastUserText(read)).toMatch(/^## Context\n\n### page\n\nR\(Fetch slow\)/);
    const finishes = readFileSync(join(runDir, "journal.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"kind":"finish"'));
    expect(finishes).toHaveLength(2);

    // Resumed with the last step lost: the calls replay, the read is asked again, of the same value.
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "");
    writeFileSync(join(runDir, "journal.jsonl"), `${journal.filter((line) => !line.includes("Read it")).join("\n")}\n`);
    await server.close();
    server = await startFakeAnthropic({
      respond: (request) => reply.text(`R(${lastUserText(request).split("\n").at(-1)})`),
    });
    const resumed = await loaded.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd, maxRetries: 0, runDir, resume: true },
    );
    expect(server.requests.map((request) => lastUserText(request))).toEqual([
      expect.stringMatching(/^## Context\n\n### page\n\nR\(Fetch slow\)/),
    ]);
    expect(resumed).toEqual(first);
  });

  it("at top level before any call of the block: P019, `{count}` reads null and shows `null` (a copied null still shows nothing), then the call's value", async () => {
    const source = lines(
      "block count_up():",
      '  let count = session "Count"',
      "",
      'session "Before: {count}"',
      "let early = count",
      "do count_up()",
      'output result = session "After: {count} {early}"',
    );
    const { diagnostics } = await compile(source, "early.prose");
    expect(
      diagnostics.map(
        (diagnostic) => `${diagnostic.code} ${diagnostic.range.start.line}:${diagnostic.range.start.column}`,
      ),
    ).toEqual(["P019 4:19", "P019 5:13", "P019 7:34"]);
    server = await startFakeAnthropic({
      respond: (request) => reply.text(`R(${lastUserText(request).split("\n").at(-1)})`),
    });
    const loaded = await loadProgram(source, "early.prose");
    const outputs = await loaded.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-reads-"), maxRetries: 0 },
    );
    const prompts = server.requests.map((request) => lastUserText(request).split("\n").at(-1));
    expect(prompts).toEqual(["Before: null", "Count", "After: R(Count) "]);
    expect(outputs).toEqual({ result: "R(After: R(Count) )" });
  });

  it("in another block's prompt before any call: `{count}` shows `null`, then the finished call's value", async () => {
    const source = lines(
      "block count_up():",
      '  let count = session "Count"',
      "",
      "block report():",
      '  session "Seen: {count}"',
      "",
      "do report()",
      "do count_up()",
      "do report()",
    );
    server = await startFakeAnthropic({
      respond: (request) => reply.text(`R(${lastUserText(request).split("\n").at(-1)})`),
    });
    const loaded = await loadProgram(source, "seen.prose");
    await loaded.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-reads-"), maxRetries: 0 },
    );
    const prompts = server.requests.map((request) => lastUserText(request).split("\n").at(-1));
    expect(prompts).toEqual(["Seen: null", "Count", "Seen: R(Count)"]);
  });
});
