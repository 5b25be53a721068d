import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { namesType } from "../../src/phases/3-transform/names-type.js";

describe("whether generated code names a type", () => {
  it("finds it in code, not in strings, a template's text or comments", () => {
    expect(namesType("let x: Value = null;", "Value")).toBe(true);
    expect(namesType("const xs: Value[] = [];", "Value")).toBe(true);
    expect(namesType("f(\"Value\", 'Value');", "Value")).toBe(false);
    expect(namesType("f(`a Value and ${g(`Value`)}`);", "Value")).toBe(false);
    expect(namesType("f(`a ${g({ x: 1 })} b`); let y: Value;", "Value")).toBe(true);
    expect(namesType("f(`${x}`) as Value", "Value")).toBe(true);
    expect(namesType("// Value\n/** Value */ let z: Values; f(`\\` Value`);", "Value")).toBe(false);
    expect(namesType('f("\\" Value");', "Value")).toBe(false);
  });

  it("a module imports `Value` only where its code names it, whatever its prompts say", () => {
    const saysValue = lowerSource('session "Value: a number"\n', "value.prose").code!;
    expect(saysValue).not.toMatch(/type Value\b/);
    const typed = lowerSource(
      'let xs = ["a"] | map:\n  session "Value: {item}"\nsession "{xs}"\n',
      "value.prose",
    ).code!;
    expect(typed).toMatch(/type Value\b/);
  });
});
