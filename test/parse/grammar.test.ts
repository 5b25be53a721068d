import { describe, expect, it } from "vitest";
import { statements } from "../support/parse-helpers.js";

const str = (value: string) => ({ kind: "String", value });
const name = (value: string) => ({ kind: "Identifier", name: value });
const expr = (expression: unknown) => ({ kind: "ExpressionStatement", expression });

describe("statements", () => {
  it("use, with and without alias", () => {
    expect(statements('use "./other.prose" as other\nuse "@alice/research"\n')).toMatchObject([
      { kind: "Use", source: str("./other.prose"), alias: name("other") },
      { kind: "Use", source: str("@alice/research"), alias: null },
    ]);
  });

  it("legacy import", () => {
    expect(statements('import "web-search" from "github:x/y"\n')).toMatchObject([
      { kind: "Import", skill: str("web-search"), source: str("github:x/y") },
    ]);
  });

  it("input with a string, a discretion and a triple-quoted prompt", () => {
    expect(
      statements('input topic: "The topic"\ninput mode: **ask which mode**\ninput notes: """Some\nnotes"""\n'),
    ).toMatchObject([
      { kind: "Input", name: name("topic"), prompt: str("The topic") },
      { kind: "Input", name: name("mode"), prompt: { kind: "Discretion", text: "ask which mode" } },
      { kind: "Input", name: name("notes"), prompt: { kind: "String", triple: true, value: "Some\nnotes" } },
    ]);
  });

  it("output with a name, and output of a bare expression", () => {
    expect(statements("output report = draft\noutput { a, b: c }\noutput session: writer\n")).toMatchObject([
      { kind: "Output", name: name("report"), value: name("draft") },
      {
        kind: "Output",
        name: null,
        value: {
          kind: "Object",
          entries: [
            { key: name("a"), value: null },
            { key: name("b"), value: name("c") },
          ],
        },
      },
      { kind: "Output", name: null, value: { kind: "Session", agent: name("writer") } },
    ]);
  });

  it("agent with properties, nested permissions and a multi-line prompt", () => {
    const [agent] = statements(
      'agent security-reviewer:\n  model: opus\n  persist: true\n  skills: ["a", "b"]\n  permissions:\n    read: ["src/**"]\n    bash: deny\n  prompt: """\nYou review.\n"""\n',
    );
    expect(agent).toMatchObject({
      kind: "Agent",
      name: name("security-reviewer"),
      properties: [
        { key: name("model"), value: name("opus") },
        { key: name("persist"), value: { kind: "Boolean", value: true } },
        { key: name("skills"), value: { kind: "Array", elements: [str("a"), str("b")] } },
        {
          key: name("permissions"),
          value: {
            kind: "PropertyBlock",
            properties: [{ key: name("read") }, { key: name("bash"), value: name("deny") }],
          },
        },
        { key: name("prompt"), value: { kind: "String", triple: true, value: "\nYou review.\n" } },
      ],
    });
  });

  it("let, const and assignment", () => {
    expect(statements('let a = "x"\nconst b = 2\na = a + b\n')).toMatchObject([
      { kind: "Binding", declaration: "let", name: name("a"), value: str("x") },
      { kind: "Binding", declaration: "const", name: name("b"), value: { kind: "Number", value: 2 } },
      { kind: "Binding", declaration: null, name: name("a"), value: { kind: "Binary", operator: "+" } },
    ]);
  });

  it("block definitions with parameters, empty parentheses and modifiers", () => {
    expect(
      statements('block a:\n  session "x"\nblock b():\n  session "x"\nblock c(x, y) (max_depth: 50):\n  session "x"\n'),
    ).toMatchObject([
      { kind: "Block", name: name("a"), params: [], modifiers: [] },
      { kind: "Block", name: name("b"), params: [] },
      {
        kind: "Block",
        name: name("c"),
        params: [name("x"), name("y")],
        modifiers: [{ key: name("max_depth"), value: { value: 50 } }],
      },
    ]);
  });

  it("if / elif / else with discretion and deterministic conditions", () => {
    const [statement] = statements(
      'if **docs are empty** or depth <= 0:\n  throw\nelif not done:\n  throw "x"\nelse:\n  session "y"\n',
    );
    expect(statement).toMatchObject({
      kind: "If",
      clauses: [
        {
          test: {
            kind: "Binary",
            operator: "or",
            left: { kind: "Discretion", text: "docs are empty" },
            right: { kind: "Binary", operator: "<=", left: name("depth"), right: { value: 0 } },
          },
          body: [{ kind: "Throw", message: null }],
        },
        {
          test: { kind: "Unary", operator: "not", operand: name("done") },
          body: [{ kind: "Throw", message: str("x") }],
        },
      ],
      alternate: [expr({ kind: "Session" })],
    });
  });

  it("choice with options and a multi-line criteria", () => {
    const [statement] = statements(
      'choice ***\n  which fits\n***:\n  option "A":\n    session "a"\n  option "B":\n    session "b"\n',
    );
    expect(statement).toMatchObject({
      kind: "Choice",
      criteria: { kind: "Discretion", multiline: true },
      options: [{ label: str("A") }, { label: str("B") }],
    });
  });

  it("assert with an indented message", () => {
    expect(statements('assert count > 0:\n  "nothing to do"\n')).toMatchObject([
      { kind: "Assert", test: { kind: "Binary", operator: ">" }, message: str("nothing to do") },
    ]);
  });
});

describe("sessions", () => {
  it("the four heads", () => {
    expect(
      statements('session "Do it"\nsession: writer\nsession draft: writer\nsession "Label"\n  prompt: "Real prompt"\n'),
    ).toMatchObject([
      expr({ kind: "Session", prompt: str("Do it"), agent: null, name: null }),
      expr({ kind: "Session", agent: name("writer"), prompt: null }),
      expr({ kind: "Session", name: name("draft"), agent: name("writer") }),
      expr({ kind: "Session", prompt: str("Label"), properties: [{ key: name("prompt"), value: str("Real prompt") }] }),
    ]);
  });

  it("context in every form", () => {
    const [statement] = statements(
      'session "x"\n  context: a\nsession "x"\n  context: [a, b]\nsession "x"\n  context: { a, b: c }\nsession "x"\n  context: "src/**/*.ts"\nsession "x"\n  context:\n    first: a\n    second: b\n',
    ).slice(4);
    expect(statement).toMatchObject(
      expr({
        kind: "Session",
        properties: [
          {
            key: name("context"),
            value: { kind: "PropertyBlock", properties: [{ key: name("first") }, { key: name("second") }] },
          },
        ],
      }),
    );
  });

  it("resume as a statement and as an expression", () => {
    expect(statements('resume: captain\n  prompt: "Go"\nlet x = resume: captain\n')).toMatchObject([
      expr({ kind: "Resume", agent: name("captain"), properties: [{ key: name("prompt") }] }),
      { kind: "Binding", value: { kind: "Resume", agent: name("captain"), properties: [] } },
    ]);
  });

  it("arrow chains, also ending in a session with properties", () => {
    expect(
      statements('session "A" -> session "B" -> session "C"\nlet x = session "A" -> session: w\n  context: y\n'),
    ).toMatchObject([
      expr({ kind: "Arrow", steps: [{ kind: "Session" }, { kind: "Session" }, { kind: "Session" }] }),
      {
        kind: "Binding",
        value: {
          kind: "Arrow",
          steps: [{ kind: "Session" }, { kind: "Session", properties: [{ key: name("context") }] }],
        },
      },
    ]);
  });
});

describe("composition", () => {
  it("do calls and do blocks", () => {
    expect(statements('do a\ndo b()\ndo c("x", y)\ndo:\n  session "z"\n')).toMatchObject([
      expr({ kind: "DoCall", name: name("a"), args: [] }),
      expr({ kind: "DoCall", name: name("b"), args: [] }),
      expr({ kind: "DoCall", name: name("c"), args: [str("x"), name("y")] }),
      expr({ kind: "DoBlock", body: [expr({ kind: "Session" })] }),
    ]);
  });

  it("program calls need the parenthesis right after the name", () => {
    expect(statements('let r = research(topic: "x", depth: 2)\nlet s = r.summary\n')).toMatchObject([
      {
        value: {
          kind: "ProgramCall",
          callee: name("research"),
          args: [{ name: name("topic") }, { name: name("depth") }],
        },
      },
      { value: { kind: "Member", object: name("r"), property: name("summary") } },
    ]);
  });
});

describe("parallel", () => {
  it("named branches, join strategy, count and failure policy", () => {
    const [statement] = statements(
      'parallel ("any", count: 2, on-fail: "continue"):\n  a = session "A"\n  session "B"\n',
    );
    expect(statement).toMatchObject(
      expr({
        kind: "Parallel",
        modifiers: [
          { key: null, value: str("any") },
          { key: name("count") },
          { key: name("on-fail"), value: str("continue") },
        ],
        branches: [{ kind: "Binding", declaration: null, name: name("a") }, expr({ kind: "Session" })],
      }),
    );
  });

  it("a try branch with catch at the branch's own indentation", () => {
    const [statement] = statements(
      'parallel:\n  a = try:\n    session "x"\n  catch as err:\n    session "y"\n  finally:\n    session "z"\n',
    );
    expect(statement).toMatchObject(
      expr({
        kind: "Parallel",
        branches: [{ kind: "Binding", value: { kind: "Try", handler: { param: name("err") }, finalizer: [{}] } }],
      }),
    );
  });
});

describe("loops", () => {
  it("repeat, with index", () => {
    expect(statements('repeat 3:\n  session "x"\nrepeat n as i:\n  session "x"\n')).toMatchObject([
      expr({ kind: "Repeat", count: { value: 3 }, index: null }),
      expr({ kind: "Repeat", count: name("n"), index: name("i") }),
    ]);
  });

  it("for, with index, and parallel for", () => {
    expect(
      statements(
        'for x in xs:\n  session "a"\nfor x, i in [1, 2]:\n  session "a"\nparallel for x in xs:\n  session "a"\n',
      ),
    ).toMatchObject([
      expr({ kind: "ForEach", parallel: false, item: name("x"), index: null, collection: name("xs") }),
      expr({ kind: "ForEach", index: name("i"), collection: { kind: "Array" } }),
      expr({ kind: "ForEach", parallel: true }),
    ]);
  });

  it("loop, until, while, max and index", () => {
    expect(
      statements(
        'loop:\n  session "a"\nloop until **done** (max: 5) as i:\n  session "a"\nloop while n < 3:\n  session "a"\nloop (max: 2):\n  session "a"\n',
      ),
    ).toMatchObject([
      expr({ kind: "Loop", condition: null, modifiers: [], index: null }),
      expr({
        kind: "Loop",
        condition: { mode: "until", test: { kind: "Discretion" } },
        modifiers: [{ key: name("max") }],
        index: name("i"),
      }),
      expr({ kind: "Loop", condition: { mode: "while", test: { kind: "Binary" } } }),
      expr({ kind: "Loop", condition: null, modifiers: [{ key: name("max") }] }),
    ]);
  });
});

describe("pipelines", () => {
  it("one stage on the binding line", () => {
    expect(statements('let r = xs | pmap:\n  session "x"\n')).toMatchObject([
      { value: { kind: "Pipeline", source: name("xs"), stages: [{ operator: "pmap", params: [] }] } },
    ]);
  });

  it("chained stages indented under the collection, with reduce parameters", () => {
    const [statement] = statements(
      'let r = xs\n  | filter:\n      session "keep?"\n  | map:\n      session "x"\n  | reduce(acc, item):\n      session "y"\n',
    );
    expect(statement).toMatchObject({
      value: {
        kind: "Pipeline",
        stages: [
          { operator: "filter" },
          { operator: "map" },
          { operator: "reduce", params: [name("acc"), name("item")] },
        ],
      },
    });
  });
});

describe("expressions", () => {
  it("precedence: or < and < not < comparison < sum < product < unary < postfix", () => {
    const [statement] = statements("let x = not a and b or c == d + e * -f.g[0]\n");
    expect(statement).toMatchObject({
      value: {
        operator: "or",
        left: { operator: "and", left: { kind: "Unary", operator: "not" } },
        right: {
          operator: "==",
          right: {
            operator: "+",
            right: {
              operator: "*",
              right: { kind: "Unary", operator: "-", operand: { kind: "Index", object: { kind: "Member" } } },
            },
          },
        },
      },
    });
  });

  it("literals: numbers, booleans, null, nested arrays and objects with quoted keys, trailing commas", () => {
    const [statement] = statements(
      'let x = {\n  "quoted key": [1, 2.5, true, false, null],\n  nested: [ { a: 1 }, ],\n}\n',
    );
    expect(statement).toMatchObject({
      value: {
        kind: "Object",
        entries: [
          {
            key: str("quoted key"),
            value: { elements: [{ value: 1 }, { value: 2.5 }, { value: true }, { value: false }, { kind: "Null" }] },
          },
          { key: name("nested"), value: { elements: [{ kind: "Object" }] } },
        ],
      },
    });
  });

  it("`is` compares", () => {
    expect(statements('if status is "done":\n  throw\n')).toMatchObject([
      { clauses: [{ test: { kind: "Binary", operator: "is" } }] },
    ]);
  });
});
