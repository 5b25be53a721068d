/**
 * Large programs: generated code grows linearly with the program (a judgment names the last program
 * binding it sees instead of listing them all), a program with many top-level statements runs its body
 * in `$chunk` functions, formatting it piece by piece gives exactly what formatting it whole gives, and
 * a chunked program runs: its chunks in order, sharing live bindings, its judgments seeing them all.
 */
import { afterEach, describe, expect, it } from "vitest";
import { syntheticProgram } from "../../bench/synthetic.mjs";
import { lowerSource } from "../../src/compile.js";
import { format } from "../../src/phases/3-transform/index.js";
import { partThreshold } from "../../src/phases/3-transform/parts.js";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";
import { callKind, judgmentCondition, loadProgram, TEST_API_KEY, temporaryFolder } from "../e2e/harness.js";

function lowered(source: string) {
  const result = lowerSource(source, "large.prose");
  expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return result.module!;
}

/** `count` top-level bindings, then a judgment that sees every one of them. */
function manyBindings(count: number): string {
  const lines = Array.from({ length: count }, (_, index) => `let v${index} = "value ${index}"`);
  return `${lines.join("\n")}\nif **all ${count} values are here**:\n  session "Report"\n    context: v${count - 1}\n`;
}

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("large programs", () => {
  it("the generated code grows linearly: 4x the lines, at most 4.5x the bytes", () => {
    const small = lowered(syntheticProgram(1_000)).code.length;
    const large = lowered(syntheticProgram(4_000)).code.length;
    expect(large / small).toBeGreaterThan(3.5);
    expect(large / small).toBeLessThan(4.5);
  });

  it("each judgment names the last program binding it sees, once listed in the frame", () => {
    const { code } = lowered(manyBindings(20));
    expect(code.match(/v\d+: \(\) => v\d+,/g)).toHaveLength(20);
    expect(code).toContain('"all 20 values are here", $bindings("v19"), "if")');
  });

  it("in parts, a binding some path reads before it is bound is declared with null, as in one body", () => {
    const source = `${manyBindings(partThreshold)}if **late**:\n  let late = session "Late"\nsession "Use {late}"\n`;
    const { code } = lowered(source);
    expect(code).toContain("async function $chunk1()");
    expect(code).toMatch(/^let late: string \| null = null;$/m);
    expect(code).toMatch(/^let v0: string;$/m);
  });

  it(`a program of more than ${partThreshold} top-level statements runs its body in $chunk functions, called in order`, () => {
    const { code } = lowered(manyBindings(partThreshold * 3));
    const chunks = [...code.matchAll(/^async function (\$chunk\d+)\(\): Promise<void> \{$/gm)].map((match) => match[1]);
    expect(chunks.length).toBeGreaterThan(1);
    const calls = [...code.matchAll(/^await (\$chunk\d+)\(\);$/gm)].map((match) => match[1]);
    expect(calls).toEqual(chunks);
    // Bindings are declared ahead, in the run body, so every chunk reads and assigns the same ones.
    // Declared ahead of the parts, yet bound before any read as in one body (the statements keep
    // their order): declared without a value, its type without null.
    expect(code).toMatch(/^let v0: string;$/m);
    expect(code).toContain('v0 = rt.bind({ line: 1, column: 5 }, "v0", "value 0");');
    // The final result (a program without outputs) is its last value-giving statement's, as in one body,
    // or the last value of the closing `if`'s body when it ran (transparent bodies count).
    expect(code.match(/^\$final = .*$/gm)).toEqual([
      `$final = v${partThreshold * 3 - 1};`,
      `$final = await rt.session({ at: { line: ${partThreshold * 3 + 2}, column: 3 }, prompt: "Report", unbound: true, context: { v${partThreshold * 3 - 1} } });`,
    ]);
    expect(code).toMatch(/^rt\.finalResult\(\$final\);$/m);
    expect(lowered(manyBindings(partThreshold - 1)).code).not.toContain("$chunk");
  });

  it("formatting a chunked module piece by piece gives what formatting it whole gives", async () => {
    const module = lowered(syntheticProgram(1_200));
    expect(module.split).toBeDefined();
    expect(await format(module)).toBe(await format(module.code));
  }, 30_000);

  it("a chunked program runs its chunks in order, with live bindings, and its judgment sees every binding", async () => {
    const count = partThreshold * 2;
    const requests: FakeRequest[] = [];
    server = await startFakeAnthropic({
      respond: (request) => {
        requests.push(request);
        return callKind(request) === "judgment"
          ? reply.toolUse([{ name: "answer", input: { answer: true, reason: "scripted" } }])
          : reply.text("reported");
      },
    });
    const program = await loadProgram(manyBindings(count), "chunked.prose");
    await program.run({}, { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder("prosec-chunked-") });
    expect(requests.map(callKind)).toEqual(["judgment", "session"]);
    expect(judgmentCondition(requests[0]!)).toBe(`all ${count} values are here`);
    const question = lastUserText(requests[0]!);
    for (const index of [0, count / 2, count - 1]) expect(question).toContain(`### v${index}\n\nvalue ${index}`);
    expect(lastUserText(requests[1]!)).toContain(`value ${count - 1}`);
  }, 30_000);
});
