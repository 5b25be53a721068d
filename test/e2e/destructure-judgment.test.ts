/**
 * A judgment inside the value of a destructuring (`const { b, c } = { b: a, c: **...** }`) sees the
 * bindings before the statement, never the names being destructured: it used to read `b` through the
 * program's bindings frame before `b` was initialised, and the run died with a ReferenceError (found
 * by the generated programs of test/soundness/generated.slow.test.ts, seed 1325).
 */
import { afterEach, describe, expect, it } from "vitest";
import { deterministicModel } from "../support/deterministic-model.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { lines } from "../support/lines.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a judgment in a destructured value", () => {
  it.each([
    ["a record", lines('let a = "x"', "const { b, c } = { b: a, c: (not **is it ready**) }", "output o = [b, c]")],
    [
      "a `let`, with a binding after it",
      lines('let a = "x"', "let { b, c } = { b: a, c: **go on** }", 'let d = "y"', "output o = [b, c]"),
    ],
  ])("in %s runs, seeing the bindings before the statement", async (_, source) => {
    server = await startFakeAnthropic({ respond: deterministicModel(() => true) });
    const program = await loadProgram(source, "destructure.prose");
    const outputs = await program.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-destructure-"), maxRetries: 0 },
    );
    expect(outputs["o"]).toEqual(["x", expect.any(Boolean)]);
    const judged = JSON.stringify(server.requests.at(-1)?.body?.messages);
    expect(judged).toContain("x");
  });
});
