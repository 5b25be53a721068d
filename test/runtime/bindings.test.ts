import { describe, expect, it } from "vitest";
import { bindingsInOrder } from "../../runtime/index.js";

describe("bindingsInOrder: what a judgment sees of the program's bindings", () => {
  let later = "not yet";
  const frame = bindingsInOrder({ topic: () => "ai", draft: () => later, "reviewed-0": () => null, zeta: () => 1 });

  it("gives the bindings up to the one named, by name in sorted order, read when asked", () => {
    expect(Object.entries(frame("draft"))).toEqual([
      ["draft", "not yet"],
      ["topic", "ai"],
    ]);
    later = "done";
    expect(frame("reviewed-0")).toEqual({ draft: "done", "reviewed-0": null, topic: "ai" });
  });

  it("never reads a binding declared after the one named (it may not be initialised yet)", () => {
    const unread = bindingsInOrder({
      first: () => 1,
      second: () => {
        throw new ReferenceError("Cannot access 'second' before initialization");
      },
    });
    expect(unread("first")).toEqual({ first: 1 });
  });

  it("inner bindings are added and hide the program's of the same name", () => {
    expect(Object.entries(frame("draft", { topic: "inner", item: 3 }))).toEqual([
      ["draft", "done"],
      ["item", 3],
      ["topic", "inner"],
    ]);
  });

  it("a binding declared without a value and not bound yet (a later option binds it) is seen as null", () => {
    const module: { answer?: string } = {};
    const declaredAhead = bindingsInOrder({ answer: () => module.answer, topic: () => "ai" });
    expect(declaredAhead("topic")).toStrictEqual({ answer: null, topic: "ai" });
    module.answer = "yes";
    expect(declaredAhead("topic")).toEqual({ answer: "yes", topic: "ai" });
  });

  it("a name the frame does not list is a compiler bug, said so", () => {
    expect(() => frame("missing")).toThrow(/no program binding is named "missing"/);
  });
});
