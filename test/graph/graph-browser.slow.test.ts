/// <reference lib="dom" />
/**
 * `prosec graph` in a real browser: every corpus program's Mermaid text renders through the
 * `mermaid` package (its own browser build, loaded from node_modules, nothing from the network)
 * with its default settings, as GitHub renders it; the SVG is well-formed with one node per session.
 */
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { graphOfSource, toMermaid, toSvg, type FlowGraph } from "../../src/graph/index.js";
import { parse } from "../../src/phases/1-parse/index.js";
import { walk } from "../../src/walk.js";
import { launchBrowser, type Browser } from "../support/chromium.js";
import { HOSTILE_PROGRAM, HOSTILE_TEXTS } from "./hostile-program.js";

const corpus = join(import.meta.dirname, "../../examples/openprose");
const programs = readdirSync(corpus)
  .filter((name) => name.endsWith(".prose"))
  .map((name) => ({ name, source: readFileSync(join(corpus, name), "utf8") }));
const mermaidScript = createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js");

/** What the tests call of the `mermaid` global its browser build defines. */
interface MermaidApi {
  initialize(config: object): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  browser = await launchBrowser();
  ({ page, errors } = await browser.newPage());
  await page.setContent("<!doctype html><html><body><div id=out></div></body></html>");
  await page.addScriptTag({ path: mermaidScript });
  await page.evaluate(() =>
    (globalThis as unknown as { mermaid: MermaidApi }).mermaid.initialize({ startOnLoad: false }),
  );
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

function graphOf(source: string): FlowGraph {
  const graph = graphOfSource(source).graph;
  if (graph === undefined) throw new Error("the program has errors");
  return graph;
}

function sessionsOf(source: string): number {
  let count = 0;
  walk(parse(source).ast, (node) => {
    if (node.kind === "Session" || node.kind === "Resume") count++;
  });
  return count;
}

/** Renders the text with Mermaid, puts the SVG in the page, and says what it drew. */
async function renderMermaid(text: string, id: string) {
  return page.evaluate(
    async ({ text, id }) => {
      const { svg } = await (globalThis as unknown as { mermaid: MermaidApi }).mermaid.render(id, text);
      const out = document.getElementById("out")!;
      out.innerHTML = svg;
      return {
        nodes: [...out.querySelectorAll("g.node")].map((node) => node.id.replace(/^.*flowchart-(n\d+)-\d+$/, "$1")),
        texts: [...out.querySelectorAll("g.node")].map((node) => node.textContent ?? ""),
        edges: out.querySelectorAll(".edgePaths path, path.flowchart-link").length,
        clusters: out.querySelectorAll("g.cluster").length,
        injected: out.querySelectorAll("img, script, a, iframe, foreignObject b").length,
      };
    },
    { text, id },
  );
}

async function parseSvg(svg: string) {
  return page.evaluate((svg) => {
    const document = new DOMParser().parseFromString(svg, "image/svg+xml");
    return {
      error: document.querySelector("parsererror")?.textContent ?? null,
      root: document.documentElement.nodeName,
      sessions: document.querySelectorAll("g.node.session").length,
      nodes: document.querySelectorAll("g.node").length,
      injected: document.querySelectorAll("img, script, a, iframe").length,
      texts: [...document.querySelectorAll("g.node text")].map((text) => text.textContent ?? ""),
    };
  }, svg);
}

describe("prosec graph in Chromium", () => {
  it("renders every corpus program's Mermaid text, one drawn node per graph node", async () => {
    expect(programs.length).toBeGreaterThanOrEqual(50);
    for (const [index, { name, source }] of programs.entries()) {
      const graph = graphOf(source);
      const drawn = await renderMermaid(toMermaid(graph), `graph${index}`);
      expect(drawn.nodes.sort(), name).toEqual(graph.nodes.map((node) => node.id).sort());
      expect(drawn.edges, name).toBe(graph.edges.length);
    }
    expect(errors).toEqual([]);
  }, 600_000);

  it("writes every corpus program's SVG well-formed, with one node per session", async () => {
    for (const { name, source } of programs) {
      const graph = graphOf(source);
      const parsed = await parseSvg(toSvg(graph));
      expect(parsed.error, name).toBeNull();
      expect(parsed.root).toBe("svg");
      expect(parsed.nodes, name).toBe(graph.nodes.length);
      expect(parsed.sessions, name).toBe(sessionsOf(source));
    }
  }, 300_000);

  it("shows hostile labels as text, in Mermaid and in SVG", async () => {
    const graph = graphOf(HOSTILE_PROGRAM);
    const drawn = await renderMermaid(toMermaid(graph), "hostile");
    expect(drawn.injected).toBe(0);
    expect(drawn.nodes.sort()).toEqual(graph.nodes.map((node) => node.id).sort());
    const judgment = HOSTILE_TEXTS.judgment;
    expect(drawn.texts.join("\n")).toContain(judgment);
    const parsed = await parseSvg(toSvg(graph));
    expect(parsed.error).toBeNull();
    expect(parsed.injected).toBe(0);
    expect(parsed.texts.some((text) => text.includes(judgment))).toBe(true);
    expect(parsed.texts.some((text) => text.includes('“"]; click n1 href "javascript:alert(1)"'))).toBe(true);
    expect(errors).toEqual([]);
  }, 120_000);
});
