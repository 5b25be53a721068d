import { describe, expect, it } from "vitest";
import {
  backoffs,
  emptyAnswers,
  failurePolicies,
  joinStrategies,
  modelNames,
  permissionKinds,
  permissionModes,
  persistScopes,
  propertyNames,
  type ModifierKey,
  type PropertyName,
} from "../../runtime/vocabulary.js";
import { lowerSource } from "../../src/compile.js";

function lowered(source: string): { code: string; codes: string[] } {
  const { code, diagnostics } = lowerSource(source, "words.prose");
  return { code: code ?? "", codes: diagnostics.map((diagnostic) => diagnostic.code) };
}

const branches = '  session "a"\n  session "b"\n';

describe("the vocabulary (runtime/vocabulary.ts) is what analysis accepts and lowering writes", () => {
  it.each(backoffs)("backoff: %s", (word) => {
    const { code, codes } = lowered(`session "x"\n  retry: 2\n  backoff: ${word}\n`);
    expect(codes).toEqual([]);
    expect(code).toContain(`backoff: "${word}"`);
  });

  it.each(emptyAnswers)("empty: %s, on an agent and on a session", (word) => {
    const { code, codes } = lowered(`agent a:\n  empty: ${word}\nsession: a\nsession "x"\n  empty: "${word}"\n`);
    expect(codes).toEqual([]);
    // Lowered for the agent and for the session; the third is the session's line in the program's own text.
    expect(code.match(new RegExp(`empty: "${word}"`, "g"))).toHaveLength(3);
  });

  it.each(joinStrategies)("parallel (%s)", (word) => {
    const { code, codes } = lowered(`parallel ("${word}"):\n${branches}`);
    expect(codes).toEqual([]);
    const call = { all: "Promise.all(rt.branches(", first: "rt.first(", any: "rt.any(" }[word];
    expect(code).toContain(call);
  });

  it.each(failurePolicies)("on-fail: %s", (word) => {
    const { code, codes } = lowered(`parallel (on-fail: "${word}"):\n${branches}`);
    expect(codes).toEqual([]);
    // The runtime's default policy is fail-fast: written, it is lowered as no option at all.
    if (word === "fail-fast") expect(code).toContain("Promise.all(rt.branches({ line: 1, column: 1 }, {  }, [");
    else expect(code).toContain(`onFail: "${word}"`);
  });

  const kindModes = permissionKinds.flatMap((kind): [string, string][] =>
    kind === "env" || kind === "mcp" ? [[kind, "deny"]] : permissionModes.map((mode) => [kind, mode]),
  );
  it.each(kindModes)("permissions: %s: %s", (kind, mode) => {
    const { code, codes } = lowered(`agent a:\n  permissions:\n    ${kind}: ${mode}\nsession: a\n`);
    expect(codes).toEqual([]);
    expect(code).toContain("permissions: {");
  });

  it.each([...modelNames, ...persistScopes.map((scope) => `persist ${scope}`)])("%s", (word) => {
    const property = word.startsWith("persist ") ? `persist: ${word.slice(8)}` : `model: ${word}`;
    const { code, codes } = lowered(`agent a:\n  ${property}\nsession: a\n`);
    expect(codes).toEqual([]);
    expect(code).toContain(`"${word.replace("persist ", "")}"`);
  });

  it("rejects a word outside it", () => {
    expect(lowered('session "x"\n  backoff: quadratic\n').codes).toEqual(["P003"]);
    expect(lowered('session "x"\n  empty: sometimes\n').codes).toEqual(["P003"]);
    expect(lowered(`parallel ("most"):\n${branches}`).codes).toEqual(["P003"]);
    expect(lowered(`parallel (on-fail: "retry"):\n${branches}`).codes).toEqual(["P003"]);
    expect(lowered("agent a:\n  permissions:\n    read: maybe\nsession: a\n").codes).toEqual(["W009"]);
    expect(lowered("agent a:\n  model: gpt\nsession: a\n").codes).toEqual(["E008"]);
  });

  // Keyed by the vocabulary's types: a property or modifier added to it fails type-checking here
  // until it has an example, and the examples below fail until analysis and lowering know it.
  const propertyExamples: Record<PropertyName, { readonly source: string; readonly lowered: string }> = {
    model: { source: "model: opus", lowered: 'model: "opus"' },
    prompt: { source: 'prompt: "Be brief."', lowered: 'prompt: "Be brief."' },
    context: { source: "context: []", lowered: "context: []" },
    retry: { source: "retry: 2", lowered: "retry: 2" },
    backoff: { source: "backoff: linear", lowered: 'backoff: "linear"' },
    persist: { source: "persist: true", lowered: "persist: true" },
    skills: { source: 'skills: ["web-search"]', lowered: 'skills: ["web-search"]' },
    permissions: { source: "permissions:\n    read: allow", lowered: "permissions: {" },
    empty: { source: "empty: allow", lowered: 'empty: "allow"' },
    // An agent's type is its sessions' (written on the session call, not the agent).
    returns: { source: "returns: string[]", lowered: 'returns: { type: "array", items: { type: "string" } }' },
  };
  it.each(propertyNames)("property %s: accepted, and lowered to its own field of SessionSettings", (name) => {
    const example = propertyExamples[name];
    const { code, codes } = lowered(`agent a:\n  ${example.source}\nsession: a\n`);
    // A skill that is not imported is only warned about (W007).
    expect(codes).toEqual(name === "skills" ? ["W007"] : []);
    expect(code).toContain(example.lowered);
    expect(code).not.toContain("extra:");
  });

  const modifierExamples: Record<ModifierKey, string> = {
    "on-fail": `parallel (on-fail: "continue"):\n${branches}`,
    count: `parallel ("any", count: 1):\n${branches}`,
    max: 'loop until **done** (max: 3):\n  session "a"\n',
    max_depth: 'block explore(topic) (max_depth: 4):\n  session "Explore {topic}"\ndo explore("x")\n',
    timeout: 'input reviewer: "Who reviews it?" (timeout: 60)\nsession "Ask {reviewer}"\n',
  };
  it.each(Object.entries(modifierExamples))("modifier %s: accepted", (_key, source) => {
    expect(lowered(source).codes).toEqual([]);
  });
});
