import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompletionRequest, type CompletionItem } from "vscode-languageserver-protocol";
import { fileUri, positionOf, startLsp, type LspSession } from "../support/lsp-client.js";
import { temporaryFolder } from "../support/temp.js";

const program = `use "./lib" as lib
input topic: "What to research"
# a comment {
agent researcher:
  model: opus
  prompt: "You research"
  permissions:
    read: ["docs/**"]

agent editor:
  prompt: "You edit"

block review(draft, focus):
  session "Review {dr}"

let first = session "Start on {topic}"
let second = session: researcher
  context: first
let third = session """
Compare {
"""
do review(first, "clarity")
`;

const statementKeywords = [
  "let",
  "const",
  "output",
  "input",
  "use",
  "import",
  "agent",
  "block",
  "if",
  "elif",
  "else",
  "choice",
  "option",
  "try",
  "catch",
  "finally",
  "throw",
  "return",
  "break",
  "continue",
  "assert",
  "parallel",
  "loop",
  "repeat",
  "for",
  "do",
  "session",
  "resume",
];
const expressionKeywords = [
  "session",
  "resume",
  "do",
  "parallel",
  "repeat",
  "for",
  "loop",
  "try",
  "true",
  "false",
  "null",
  "not",
];
const properties = [
  "model",
  "prompt",
  "context",
  "retry",
  "backoff",
  "persist",
  "skills",
  "permissions",
  "empty",
  "returns",
];

describe("prosec lsp: completion", () => {
  let lsp: LspSession;
  let folder: string;
  const labels = (items: CompletionItem[] | null) => (items ?? []).map((item) => item.label);
  const complete = async (text: string, needle: string, delta = needle.length, name = "program.prose") =>
    (await lsp.connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri: fileUri(join(folder, name)) },
      position: positionOf(text, needle, delta),
    })) as CompletionItem[] | null;

  beforeAll(async () => {
    folder = temporaryFolder("prosec-lsp-completion-");
    writeFileSync(join(folder, "lib.prose"), 'input subject: "The subject"\noutput report = session "On {subject}"\n');
    lsp = startLsp(folder);
    await lsp.initialize(folder);
    await lsp.open(join(folder, "program.prose"), program);
    expect(
      (await lsp.diagnostics(fileUri(join(folder, "program.prose")))).diagnostics.map((diagnostic) => diagnostic.code),
    ).toEqual(["P002"]);
  });

  afterAll(() => lsp.process.kill());

  it("offers the names in scope inside `{…}` of a string: a block's parameters, then the program's", async () => {
    const items = await complete(program, "{dr", 1);
    expect(items!.map((item) => [item.label, item.kind, item.detail])).toEqual([
      ["draft", 6, "param"],
      ["focus", 6, "param"],
      ["lib", 9, "program"],
      ["topic", 5, "input"],
      ["first", 6, "let"],
      ["second", 6, "let"],
      ["third", 6, "let"],
    ]);
  });

  it("offers only names declared before the string, and not the one it is being bound to", async () => {
    expect(labels(await complete(program, "{topic}", 1))).toEqual(["lib", "topic"]);
    expect(labels(await complete(program, "Compare {"))).toEqual(["lib", "topic", "first", "second"]);
  });

  it("offers agents after `session:`, blocks after `do`, and a property's words after its colon", async () => {
    expect(labels(await complete(program, "session: ", 9))).toEqual(["researcher", "editor"]);
    const blocks = await complete(program, "do ", 3);
    expect(blocks!.map((item) => [item.label, item.detail])).toEqual([["review", "block(draft, focus)"]]);
    expect(labels(await complete(program, "model: "))).toEqual(["sonnet", "opus", "haiku"]);
    expect(labels(await complete(program, "read: "))).toEqual(["allow", "deny", "prompt"]);
  });

  it("offers property names on the lines under an agent or a session, permission kinds under `permissions:`", async () => {
    const agentLine = await complete(program, '  prompt: "You research', 2);
    expect(agentLine!.map((item) => [item.label, item.insertText])).toEqual(
      properties.map((name) => [name, `${name}: `]),
    );
    expect(labels(await complete(program, '  prompt: "You research', 5))).toEqual(properties);
    expect(labels(await complete(program, "  context: first", 2))).toEqual(properties);
    expect(labels(await complete(program, "    read", 4))).toEqual([
      "read",
      "write",
      "execute",
      "bash",
      "network",
      "env",
      "mcp",
    ]);
  });

  it("offers keywords and names where a statement starts, names, agents and expression keywords where a value goes", async () => {
    expect(labels(await complete(program, "do review", 0))).toEqual([
      ...statementKeywords,
      "lib",
      "topic",
      "first",
      "second",
      "third",
    ]);
    expect(labels(await complete(program, "context: ", 9))).toEqual([
      "lib",
      "topic",
      "first",
      "researcher",
      "editor",
      ...expressionKeywords,
    ]);
  });

  it("offers the pipeline stages after `|`", async () => {
    const pipe = 'let xs = ["a"]\nlet ys = xs | ';
    await lsp.open(join(folder, "pipe.prose"), pipe);
    expect(labels(await complete(pipe, "| ", 2, "pipe.prose"))).toEqual(["map", "filter", "pmap", "reduce"]);
  });

  it("offers the servers of the nearest .mcp.json at the start of an mcp: glob, prompt: entries too", async () => {
    mkdirSync(join(folder, "tools"));
    writeFileSync(
      join(folder, "tools", ".mcp.json"),
      JSON.stringify({ mcpServers: { memory: { command: "x" }, github: { type: "http", url: "http://h/mcp" } } }),
    );
    const tools = 'agent a:\n  permissions:\n    mcp: ["memory/*", prompt: "gi"]\nsession: a\n  prompt: "hi"\n';
    await lsp.open(join(folder, "tools", "tools.prose"), tools);
    const name = join("tools", "tools.prose");
    const first = await complete(tools, '["', 2, name);
    expect(first!.map((item) => [item.label, item.insertText])).toEqual([
      ["memory", "memory/"],
      ["github", "github/"],
    ]);
    expect(labels(await complete(tools, 'prompt: "gi', 11, name))).toEqual(["memory", "github"]);
    // Past the server's `/` is a tool glob (tools are known only when the server starts), and
    // other strings are text.
    expect(await complete(tools, '"memory/', 8, name)).toEqual([]);
    expect(await complete(tools, '"hi', 3, name)).toEqual([]);
  });

  it("offers nothing in comments and in the plain text of strings", async () => {
    expect(await complete(program, "# a comment {")).toEqual([]);
    expect(await complete(program, "You research", 4)).toEqual([]);
  });

  it("keeps scopes while the line being typed does not parse", async () => {
    const typing =
      'input topic: "t"\nblock review(draft, focus):\n  session "Review {draft}"\n  let note = session "Note {\n';
    const path = join(folder, "typing.prose");
    await lsp.open(path, typing);
    expect((await lsp.diagnostics(fileUri(path))).diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["E001"]);
    expect(labels(await complete(typing, "Note {", 6, "typing.prose"))).toEqual(["draft", "focus", "topic"]);
  });
});
