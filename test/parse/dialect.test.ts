import { describe, expect, it } from "vitest";
import { statements } from "../support/parse-helpers.js";

const name = (value: string) => ({ kind: "Identifier", name: value });
const str = (value: string) => ({ kind: "String", value });

// The statements real programs use beyond OpenProse's reference grammar (docs/language.md), one rule per test.
describe("statements beyond the reference grammar", () => {
  it("a session accepts every agent property, and unknown ones", () => {
    const [statement] = statements(
      'session "Audit"\n  permissions:\n    bash: deny\n  skills: ["scan"]\n  persist: user\n  colour: blue\n',
    );
    expect(statement).toMatchObject({
      expression: {
        kind: "Session",
        prompt: str("Audit"),
        properties: [
          {
            key: name("permissions"),
            value: { kind: "PropertyBlock", properties: [{ key: name("bash"), value: name("deny") }] },
          },
          { key: name("skills") },
          { key: name("persist"), value: name("user") },
          { key: name("colour"), value: name("blue") },
        ],
      },
    });
  });

  it("persist takes true, project, user or a path; backoff a name or a string", () => {
    const [agent] = statements(
      'agent a:\n  persist: true\n  persist: project\n  persist: ".state/a"\n  backoff: exponential\n  backoff: "exponential"\n',
    );
    expect(agent).toMatchObject({
      properties: [
        { value: { kind: "Boolean", value: true } },
        { value: name("project") },
        { value: str(".state/a") },
        { value: name("exponential") },
        { value: str("exponential") },
      ],
    });
  });

  it("input may appear inside a choice option, with a discretion prompt", () => {
    const [choice] = statements('choice **mode**:\n  option "Ask":\n    input answer: **ask the user what to do**\n');
    expect(choice).toMatchObject({
      options: [
        {
          body: [
            { kind: "Input", name: name("answer"), prompt: { kind: "Discretion", text: "ask the user what to do" } },
          ],
        },
      ],
    });
  });

  it("output without a name returns from a block; output with one may appear in several branches", () => {
    const source =
      'block pick(x):\n  if **x is good**:\n    output result = x\n  else:\n    output result = "none"\n  output x\n';
    expect(statements(source)).toMatchObject([
      {
        kind: "Block",
        body: [
          {
            kind: "If",
            clauses: [{ body: [{ kind: "Output", name: name("result") }] }],
            alternate: [{ kind: "Output", name: name("result") }],
          },
          { kind: "Output", name: null, value: name("x") },
        ],
      },
    ]);
  });

  it("arrow chains stand as statements, and resume is an expression", () => {
    expect(statements('session "a" -> session "b"\nlet x = resume: captain\n')).toMatchObject([
      { kind: "ExpressionStatement", expression: { kind: "Arrow", steps: [{ kind: "Session" }, { kind: "Session" }] } },
      { kind: "Binding", value: { kind: "Resume", agent: name("captain") } },
    ]);
  });

  it("let { a, b } = ... destructures, over several lines too; const as well", () => {
    expect(statements('let { summary, sources } = research(topic: "x")\nconst {\n  a,\n  b\n} = pair\n')).toMatchObject(
      [
        {
          kind: "Destructure",
          declaration: "let",
          names: [name("summary"), name("sources")],
          value: { kind: "ProgramCall", callee: name("research") },
        },
        { kind: "Destructure", declaration: "const", names: [name("a"), name("b")], value: name("pair") },
      ],
    );
  });

  it("throw with and without a message, with a comment after it", () => {
    expect(statements('throw  # re-raise\nthrow "failed: {reason}"\n')).toMatchObject([
      { kind: "Throw", message: null },
      {
        kind: "Throw",
        message: { kind: "String", parts: [{ value: "failed: " }, { kind: "Placeholder", text: "{reason}" }] },
      },
    ]);
  });
});
