import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { costOfSource } from "../../src/compile.js";
import { graphOfSource, toDot, toMermaid, toSvg, type FlowGraph } from "../../src/graph/index.js";
import { formatCount } from "../../src/phases/2-analyze/cost/format.js";
import { Poly } from "../../src/phases/2-analyze/cost/poly.js";
import { HOSTILE_PROGRAM, HOSTILE_TEXTS } from "./hostile-program.js";

const corpus = join(import.meta.dirname, "../../examples/openprose");

function graphOf(source: string): FlowGraph {
  const result = graphOfSource(source);
  expect(result.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  return result.graph!;
}

const node = (graph: FlowGraph, text: string) => {
  const found = graph.nodes.find((candidate) => candidate.lines.some((line) => line.includes(text)));
  if (found === undefined) throw new Error(`no node with ${text}`);
  return found;
};

describe("prosec graph: the model", () => {
  it("draws a parallel as a fork with its strategy and failure policy, a branch per statement, and a join", () => {
    const graph = graphOf(
      `parallel ("any", count: 2, on-fail: "continue"):\n  a = session "one"\n  b = session "two"\n  c = session "three"\nsession "after"\n`,
    );
    const fork = node(graph, "parallel · any 2");
    expect(fork.lines).toContain("on-fail: continue");
    const join = node(graph, "join · any 2");
    const branches = graph.edges.filter((edge) => edge.from === fork.id).map((edge) => edge.to);
    expect(branches.map((id) => graph.nodes.find((candidate) => candidate.id === id)!.lines[1])).toEqual([
      "“one”",
      "“two”",
      "“three”",
    ]);
    for (const branch of branches)
      expect(graph.edges).toContainEqual(expect.objectContaining({ from: branch, to: join.id }));
    expect(fork.cost).toBe("3");
  });

  it("gives sessions their agent, model and line, and judgments their condition's text", () => {
    const graph = graphOf(
      `agent critic:\n  model: opus\n\nlet review = session: critic\n  prompt: "Review it"\nif **the review is harsh**:\n  session "Soften it"\n`,
    );
    expect(node(graph, "“Review it”").lines).toEqual(["session: critic", "“Review it”", "opus · line 4"]);
    const judgment = node(graph, "if **the review is harsh**");
    expect(judgment.kind).toBe("judgment");
    expect(judgment.line).toBe(6);
    expect(graph.edges.filter((edge) => edge.from === judgment.id).map((edge) => edge.label)).toEqual(["yes", "no"]);
  });

  it("draws loops with their bound, repeating back to the head, their body in a cluster", () => {
    const graph = graphOf(`loop until **done** (max: 5):\n  session "Try again"\nrepeat 3:\n  session "Again"\n`);
    const loop = node(graph, "loop until **done** · max 5");
    expect(loop.lines).toContain("≤ 5 iterations");
    expect(loop.kind).toBe("judgment");
    const body = node(graph, "“Try again”");
    expect(graph.clusters.find((cluster) => cluster.id === body.cluster)?.kind).toBe("loop");
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: body.id, to: loop.id, kind: "repeat" }));
    expect(node(graph, "repeat 3").cost).toBe("3");
    expect(node(graph, "“Again”").cost).toBe("1");
  });

  it("draws try, catch and finally, with the way an error takes", () => {
    const graph = graphOf(
      `try:\n  session "Risky"\ncatch as err:\n  session "Recover"\nfinally:\n  session "Clean up"\n`,
    );
    const attempt = node(graph, "try");
    const handler = node(graph, "catch err");
    const cleanup = node(graph, "finally");
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: attempt.id, to: handler.id, label: "error" }));
    for (const text of ["“Risky”", "“Recover”"])
      expect(graph.edges).toContainEqual(expect.objectContaining({ from: node(graph, text).id, to: cleanup.id }));
  });

  it("draws blocks as subgraphs that their calls lead to", () => {
    const graph = graphOf(
      `block review(topic):\n  session "Review {topic}"\n  session "Summarise"\n\ndo review("x")\ndo review("y")\n`,
    );
    const entry = node(graph, "block review(topic)");
    const cluster = graph.clusters.find((candidate) => candidate.id === entry.cluster)!;
    expect(cluster).toMatchObject({ kind: "block", label: "block review" });
    const calls = graph.nodes.filter((candidate) => candidate.kind === "call");
    expect(calls.map((call) => call.lines[0])).toEqual(['do review("x")', 'do review("y")']);
    expect(calls.map((call) => call.cost)).toEqual(["2", "2"]);
    for (const call of calls)
      expect(graph.edges).toContainEqual(expect.objectContaining({ from: call.id, to: entry.id, kind: "call" }));
  });

  it("draws each block as a subgraph of its own, side by side, not one inside the other", () => {
    const graph = graphOf(
      `block first():\n  for x in ["a", "b"]:\n    session "One {x}"\n\nblock second():\n  session "Two"\n\ndo first()\ndo second()\n`,
    );
    expect(graph.clusters.map(({ kind, label, parent }) => ({ kind, label, parent }))).toEqual([
      { kind: "block", label: "block first", parent: undefined },
      { kind: "loop", label: "each iteration", parent: "c1" },
      { kind: "block", label: "block second", parent: undefined },
    ]);
    expect(node(graph, "“Two”").cluster).toBe("c3");
  });

  it("draws a used program as a subgraph with its bound, which its calls lead to", () => {
    const source =
      'use "./research.prose" as research\n\nlet found = research(topic: "tides")\nsession "Summarise {found}"\n';
    const imported = costOfSource(
      'input topic: "Topic"\nsession "Research {topic}"\nsession "Check it"\noutput summary = "done"\n',
    ).cost!;
    const result = graphOfSource(source, {
      resolveImport: () => ({ inputs: ["topic"], outputs: ["summary"], cost: imported }),
    });
    const graph = result.graph!;
    const used = node(graph, "use “./research.prose”");
    expect(graph.clusters.find((cluster) => cluster.id === used.cluster)).toMatchObject({
      kind: "program",
      label: "program research",
    });
    expect(used.cost).toBe("2");
    const call = node(graph, 'research(topic: "tides")');
    expect(call.cost).toBe("2");
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: call.id, to: used.id, kind: "call" }));
  });

  it("annotates the start with the program's bound, the same as prosec cost's", () => {
    for (const file of ["09-research-with-agents.prose", "20-fixed-loops.prose", "28-gas-town.prose"]) {
      const source = readFileSync(join(corpus, file), "utf8");
      const cost = costOfSource(source).cost!;
      const calls = Object.values(cost.calls).reduce((sum: Poly, count) => sum.plus(Poly.fromCount(count)), Poly.zero);
      const start = graphOf(source).nodes[0]!;
      expect(start.cost).toBe(formatCount(calls.toCount()));
      expect(start.lines).toContain(`critical path ${formatCount(cost.criticalPath)}`);
    }
  });

  it("marks every path no other path dominates as critical, and only those", () => {
    const graph = graphOf(
      [
        'input xs: "items"',
        "if **short**:",
        '  session "a"',
        "else:",
        "  for x in xs:",
        '    session "per item"',
        "if **other**:",
        '  session "b"',
        '  session "c"',
        "else:",
        '  session "d"',
        "",
      ].join("\n"),
    );
    // 1 against |xs|: neither dominates, both critical; 2 dominates 1.
    expect(node(graph, "“a”").critical).toBe(true);
    expect(node(graph, "“per item”").critical).toBe(true);
    expect(node(graph, "“b”").critical).toBe(true);
    expect(node(graph, "“c”").critical).toBe(true);
    expect(node(graph, "“d”").critical).toBe(false);
    const d = node(graph, "“d”");
    expect(graph.edges.filter((edge) => edge.to === d.id || edge.from === d.id).every((edge) => !edge.critical)).toBe(
      true,
    );
  });

  it("takes the longest branch of a parallel as its critical path", () => {
    const graph = graphOf(
      `parallel:\n  session "short"\n  do:\n    session "long 1"\n    session "long 2"\nsession "after"\n`,
    );
    expect(node(graph, "“short”").critical).toBe(false);
    expect(node(graph, "“long 1”").critical).toBe(true);
    expect(node(graph, "“after”").critical).toBe(true);
  });

  it("writes every corpus program the same, byte for byte, each time", () => {
    for (const file of readdirSync(corpus)
      .filter((name) => name.endsWith(".prose"))
      .slice(0, 12)) {
      const source = readFileSync(join(corpus, file), "utf8");
      const [first, second] = [graphOf(source), graphOf(source)];
      expect(toMermaid(second)).toBe(toMermaid(first));
      expect(toDot(second)).toBe(toDot(first));
      expect(toSvg(second)).toBe(toSvg(first));
    }
  });
});

describe("prosec graph: labels cannot escape their format", () => {
  const graph = graphOf(HOSTILE_PROGRAM);

  it("Mermaid: every label is one quoted string of safe characters and entities", () => {
    const mermaid = toMermaid(graph);
    for (const line of mermaid.split("\n").slice(1)) {
      const withoutLabels = line.replace(/"[^"]*"/g, '""');
      expect(withoutLabels).toMatch(
        /^(\s*(n\d+(\(\[|\[\/|\[\\|\[\[|\{\{|\(|\[|\{|>)""(\]\)|\\\]|\/\]|\]\]|\}\}|\)|\]|\})|subgraph c\d+\[""\]|end|n\d+ (-->|==>|-\.->)(\|""\|)? n\d+|class [n\d,]+ \w+|classDef \w+ [\w:#,-]+))?$/,
      );
      for (const label of line.match(/"[^"]*"/g) ?? [])
        expect(label).toMatch(/^"([\p{L}\p{N} .,:_\-+=?!'()/·≤…*“”]|#\d+;|<br>)*"$/u);
    }
    expect(mermaid).not.toContain("<img");
    expect(mermaid).not.toContain("%%");
  });

  it("DOT: every label is one string with its quotes and backslashes escaped", () => {
    const dot = toDot(graph);
    for (const line of dot.split("\n")) {
      const withoutStrings = line.replace(/"(?:[^"\\]|\\.)*"/g, "S");
      expect(withoutStrings).toMatch(/^[\w\s[\]=,;{}.-]*(->[\w\s[\]=,;.]*)?$/);
    }
    expect(dot).toContain(String.raw`]] || \\l`);
    expect(dot).not.toMatch(/[\u0000-\u0008]/);
  });

  it("SVG: text is escaped, control characters are gone", () => {
    const svg = toSvg(graph);
    expect(svg).not.toContain("<img");
    expect(svg).not.toContain("<script");
    expect(svg.match(/<\/svg>/g)).toHaveLength(1);
    expect(svg).not.toMatch(/[\u0000-\u0008]/);
    expect(svg).toContain("&#60;script&#62;alert(1)&#60;/script&#62; &#38; #35;");
    expect(HOSTILE_TEXTS.judgment).toContain("<script>");
  });
});
