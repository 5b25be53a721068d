/**
 * A record key that is not a plain name, written with a string of the same text as its value
 * (`{ "a b": "a b" }`, `context: [notes, "inline text"]`): the generated field is `"a b": "a b"`,
 * never the shorthand `{ "a b" }`, which is not TypeScript (the compiler used to fail on it with an
 * internal error). Each program is compiled, run against the fake Messages API, and its value and
 * the context its session was sent are checked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { firstMessageText } from "../support/requests.js";
import { loadProgram, TEST_API_KEY, temporaryFolder } from "./harness.js";
import { lines } from "../support/lines.js";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(source: string, file: string): Promise<{ outputs: Record<string, unknown>; sent: string[] }> {
  server = await startFakeAnthropic({ respond: () => reply.text("done") });
  const program = await loadProgram(source, file);
  const outputs = await program.run(
    {},
    { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-e2e-quoted-keys-"), maxRetries: 0 },
  );
  return { outputs, sent: server.requests.map(firstMessageText) };
}

describe("a quoted key whose value is the same text", () => {
  it("is a field of a record literal", async () => {
    const { outputs } = await run(
      lines('let labels = { "a b": "a b", "1": "1", plain: "plain" }', "output labels = labels"),
      "quoted-record.prose",
    );
    expect(outputs).toEqual({ labels: { "a b": "a b", "1": "1", plain: "plain" } });
  });

  it("is a context entry, in a list beside a name and in a record", async () => {
    const { sent } = await run(
      lines(
        'let notes = "the notes"',
        'session "Listed"',
        '  context: [notes, "inline text"]',
        'session "Keyed"',
        '  context: { "my notes": "my notes", notes }',
      ),
      "quoted-context.prose",
    );
    expect(sent).toEqual([
      "## Context\n\n### notes\n\nthe notes\n\n### inline text\n\ninline text\n\nListed",
      "## Context\n\n### my notes\n\nmy notes\n\n### notes\n\nthe notes\n\nKeyed",
    ]);
  });
});
