/**
 * `--input name=value` (and `prosec answer RUN_ID name=value`) for any input name a program may
 * declare, `__proto__` and `constructor` included: each is an own key of the inputs, and a run reads it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { parseAssignments, parseInputArguments } from "../../src/run/inputs.js";
import { temporaryFolder } from "../support/temp.js";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

describe("input names Object.prototype has", () => {
  it("are own keys of the parsed assignments, and a second one is still `given twice`", () => {
    const inputs = parseAssignments(["__proto__=hi", "constructor=there", "toString=x"], "--input ");
    expect(Object.keys(inputs)).toEqual(["__proto__", "constructor", "toString"]);
    expect(Object.hasOwn(inputs, "__proto__")).toBe(true);
    expect(inputs["__proto__"]).toBe("hi");
    expect(Object.getPrototypeOf(inputs)).toBe(Object.prototype);
    expect(() => parseAssignments(["__proto__=a", "__proto__=b"], "--input ")).toThrow(
      "--input __proto__ is given twice",
    );
  });

  it("reach the run: `--input __proto__=hi` answers `input __proto__`", async () => {
    const compiled = await compile(
      'input __proto__: "p"\ninput constructor: "c"\noutput o = __proto__\noutput c = constructor\n',
      "names.prose",
    );
    expect(compiled.diagnostics).toEqual([]);
    const folder = temporaryFolder("prosec-input-names-");
    const path = join(folder, "names.prose.ts");
    writeFileSync(path, compiled.code!.replace('from "prosec/runtime"', `from ${JSON.stringify(runtimeEntry)}`));
    const module = (await import(path)) as {
      run(inputs: object, options: object): Promise<Record<string, unknown>>;
      default: Parameters<typeof parseInputArguments>[1];
    };
    const inputs = parseInputArguments(["__proto__=hi", "constructor=there"], module.default);
    const outputs = await module.run(inputs, { cwd: folder, apiKey: "unused" });
    expect(outputs).toEqual({ o: "hi", c: "there" });
  });
});
