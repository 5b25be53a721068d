/**
 * Loop variables and block parameters are constants in compiler.md, but real programs reassign them
 * (DIALECT.md, "Parallel: races, failures, cancellation"): warning P041, and the new value holds until
 * the next iteration or call.
 */
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
  "block polish(draft):",
  '  draft = session "Polish {draft}"',
  '  output result = session "Check {draft}"',
  "",
  "let notes = []",
  'for item, i in ["a", "b"]:',
  '  item = session "Expand {item} at {i}"',
  "  i = i + 10",
  '  notes = notes + [item + " " + i]',
  'let first = do polish("x")',
  'let second = do polish("y")',
  "output all = notes",
  "output polished = [first, second]",
);

describe("reassigning a loop variable or a block parameter", () => {
  it("is warning P041 at each assignment", async () => {
    const { diagnostics } = await compile(program, "reassign.prose");
    expect(diagnostics.map((d) => `${d.code} ${d.range.start.line}:${d.range.start.column} ${d.severity}`)).toEqual([
      "P041 2:3 warning",
      "P041 7:3 warning",
      "P041 8:3 warning",
    ]);
  });

  it("holds the new value for the rest of the iteration or call, and the next one starts afresh", async () => {
    server = await startFakeAnthropic({
      respond: (request) => reply.text(`R(${lastUserText(request).split("\n").at(-1)})`),
    });
    const loaded = await loadProgram(program, "reassign.prose");
    const outputs = await loaded.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-reassign-"), maxRetries: 0 },
    );
    expect(server.requests.map((request) => lastUserText(request).split("\n").at(-1))).toEqual([
      "Expand a at 0",
      "Expand b at 1",
      "Polish x",
      "Check R(Polish x)",
      "Polish y",
      "Check R(Polish y)",
    ]);
    expect(outputs).toEqual({
      all: ["R(Expand a at 0) 10", "R(Expand b at 1) 11"],
      polished: ["R(Check R(Polish x))", "R(Check R(Polish y))"],
    });
  });
});
