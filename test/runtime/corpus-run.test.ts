/**
 * Every corpus program, compiled by prosec, runs on this runtime against the fake model server: it
 * finishes, or stops with a ProseError that names its `.prose` line (a `throw` the scripted answers
 * led to, a deadline). Never a TypeError, never a crash: the lowering and the runtime agree.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { ProseError } from "../../runtime/index.js";
import { corpusPrograms } from "../support/corpus.js";
import { reply, startFakeAnthropic, type FakeRequest, type FakeServer } from "../support/fake-anthropic.js";
import { TEST_API_KEY, temporaryFolder } from "./helpers.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));
const modules = fileURLToPath(new URL("../../.vitest-temp/corpus-run/", import.meta.url));

/** Judgments alternate yes/no, choices take the first option, extractions get two items, sessions a short list. */
function answer(request: FakeRequest) {
  const tool = request.body?.tools?.[0];
  if (request.body?.tool_choice === undefined || tool === undefined) return reply.text("- first point\n- second point");
  const schema = (tool.input_schema as { properties: { answer: { type?: string; enum?: string[] } } }).properties.answer;
  const value = schema.enum?.[0] ?? (schema.type === "boolean" ? request.index % 2 === 0 : schema.type === "array" ? ["a", "b"] : "value");
  return reply.toolUse([{ name: "answer", input: { answer: value, reason: "scripted" } }]);
}

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeAnthropic({ respond: answer, keepBodies: true });
  mkdirSync(modules, { recursive: true });
});
afterAll(async () => server?.close());

describe("compiled corpus programs on the runtime", () => {
  for (const program of corpusPrograms) {
    it(program.name, async () => {
      const { code } = lowerSource(program.source, program.name);
      expect(code).toBeDefined();
      const file = join(modules, `${program.name.replace(/[^A-Za-z0-9]/g, "_")}.ts`);
      writeFileSync(file, code!.replace(/from "prosec\/runtime"/g, `from ${JSON.stringify(runtimeEntry)}`));
      const module = (await import(file)) as { default: { inputs: readonly { name: string }[] }; run: (inputs: object, options: object) => Promise<unknown> };
      const inputs = Object.fromEntries(module.default.inputs.map((input) => [input.name, `test ${input.name}`]));
      try {
        const outputs = await module.run(inputs, { apiKey: TEST_API_KEY, baseURL: server.url, cwd: temporaryFolder(), onInput: () => "yes", maxRetries: 0, deadlineMs: 3000 });
        expect(typeof outputs).toBe("object");
      } catch (error) {
        expect(error).toBeInstanceOf(ProseError);
        expect((error as ProseError).message.startsWith(`${program.name}:`)).toBe(true);
      }
    });
  }
});
