/**
 * An empty list reads `[]` in a prompt, an interpolation and a context entry, as any list that is
 * not a list of texts reads as JSON: never as nothing, which the model would read as a value left
 * out (`Sources: .`). Compiled, run against the fake Messages API, and the requests checked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { lines } from "../support/lines.js";
import { firstMessageText } from "../support/requests.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("an empty list in a prompt", () => {
  it("reads [] interpolated, in context and after a filter kept nothing", async () => {
    server = await startFakeAnthropic({ respond: () => reply.text("done") });
    const program = await loadProgram(
      lines(
        "let none = []",
        'let some = ["a"]',
        'let kept = ["x", "y"] | filter:',
        '  item == "z"',
        'session "Sources: {none}. Picks: {some}. Kept: {kept}."',
        "  context: { none }",
      ),
      "empty-list.prose",
    );
    await program.run(
      {},
      { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-empty-list-"), maxRetries: 0 },
    );
    expect(server.requests.map(firstMessageText)).toEqual([
      "## Context\n\n### none\n\n[]\n\nSources: []. Picks: - a. Kept: [].",
    ]);
  });
});
