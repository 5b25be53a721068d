/**
 * Property: every string in a `.prose` file reaches the generated module as a literal that
 * evaluates to exactly that string, whatever it holds. Seeded random strings made of the
 * characters that could break out of a literal or a comment are compiled, the module is
 * type-checked (strict) and then run against the runtime; its outputs must equal the strings.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { typecheck } from "../../src/project/typecheck.js";
import { compile } from "../../src/compile.js";
import { stringLiteral, templateChunk } from "../../src/phases/3-transform/literals.js";
import { pick, seededRandom } from "../support/random.js";
import { temporaryFolder } from "../support/temp.js";

/** Characters that end literals, open substitutions or comments, or are not plain UTF-8 text. */
const dangerous = [
  "`",
  "${",
  "$",
  "{",
  "}",
  "*/",
  "/*",
  "//",
  "\u2028",
  "\u2029",
  "\ud800",
  "\udfff",
  "\ud83d\ude00",
  '"',
  "'",
  "\\",
  "\n",
  "\t",
  "\u0000",
  "\u007f",
  "a",
  " ",
  "é",
];

function randomString(random: () => number): string {
  const length = 1 + Math.floor(random() * 12);
  return Array.from({ length }, () => pick(random, dangerous)).join("");
}

/** The `.prose` spelling of a string: `"..."` with the dialect's escapes (`\\ \" \n \t \{ \}`). */
function proseString(value: string): string {
  return `"${value.replace(/[\\"\n\t{}]/g, (char) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "{": "\\{", "}": "\\}" })[char]!)}"`;
}

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));
const folder = temporaryFolder("prosec-strings-");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("string literals round-trip exactly", () => {
  it("the literal emitters evaluate to their input (seed 7, 2,000 strings)", () => {
    const random = seededRandom(7);
    for (let index = 0; index < 2000; index++) {
      const value = randomString(random);
      expect(new Function(`return ${stringLiteral(value)};`)()).toBe(value);
      expect(new Function(`return \`${templateChunk(value)}\`;`)()).toBe(value);
      expect(new Function(`return \`${templateChunk(value)}\${"|"}${templateChunk(value)}\`;`)()).toBe(
        `${value}|${value}`,
      );
    }
  });

  it("strings compiled into a program type-check and come back unchanged at run time (seed 42)", async () => {
    const random = seededRandom(42);
    const values = Array.from({ length: 60 }, () => randomString(random));
    const program = [
      'input user: "Who is asking"',
      ...values.map((value, index) => `output plain${index} = ${proseString(value)}`),
      ...values.map((value, index) => `output mixed${index} = "{user}${proseString(value).slice(1, -1)}{user}"`),
    ].join("\n");
    const compiled = await compile(program, "strings */ `${x}` \u2028.prose");
    expect(compiled.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
    const path = join(folder, "strings.prose.ts");
    expect(await typecheck([{ path, code: compiled.code! }])).toEqual([]);

    writeFileSync(path, compiled.code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
    const module = (await import(path)) as {
      run(inputs: { user: string }, options: object): Promise<Record<string, unknown>>;
      default: { source: string };
    };
    const outputs = await module.run({ user: "U" }, { cwd: folder, apiKey: "unused" });
    values.forEach((value, index) => {
      expect(outputs[`plain${index}`]).toBe(value);
      expect(outputs[`mixed${index}`]).toBe(`U${value}U`);
    });
    expect(module.default.source).toBe("strings */ `${x}` \u2028.prose");
  }, 60_000);
});
