import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import oniguruma from "vscode-oniguruma";
import textmate, { type IGrammar } from "vscode-textmate";
import { repositoryRoot } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const extension = join(repositoryRoot, "editors/vscode");
const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(join(extension, "package.json"), "utf8"));

/** Each line's tokens as `text=scope` (the innermost scope), leaving out text with no scope but the file's. */
function tokenize(grammar: IGrammar, source: string): string[][] {
  let state = textmate.INITIAL;
  return source.split("\n").map((line) => {
    const result = grammar.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens
      .filter((token) => token.scopes.length > 1)
      .map((token) => `${line.slice(token.startIndex, token.endIndex)}=${token.scopes.at(-1)}`);
  });
}

describe("VS Code extension: the TextMate grammar", () => {
  let grammar: IGrammar;

  beforeAll(async () => {
    const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async () =>
        textmate.parseRawGrammar(
          readFileSync(join(extension, manifest.contributes.grammars[0].path), "utf8"),
          "prose.tmLanguage.json",
        ),
    });
    grammar = (await registry.loadGrammar("source.prose"))!;
  });

  it("colours comments, declarations, agents, properties and interpolation in strings", () => {
    expect(
      tokenize(grammar, '# Research\nagent security-reviewer:\n  model: opus\n  prompt: "Check {topic.area[0]}" # why'),
    ).toEqual([
      ["#=punctuation.definition.comment.prose", " Research=comment.line.number-sign.prose"],
      ["agent=storage.type.agent.prose", "security-reviewer=entity.name.type.agent.prose"],
      ["model=variable.other.property.prose", ":=punctuation.separator.key-value.prose"],
      [
        "prompt=variable.other.property.prose",
        ":=punctuation.separator.key-value.prose",
        '"=punctuation.definition.string.begin.prose',
        "Check =string.quoted.double.prose",
        "{=punctuation.section.interpolation.begin.prose",
        "topic=variable.other.readwrite.prose",
        ".area[0]=variable.other.property.prose",
        "}=punctuation.section.interpolation.end.prose",
        '"=punctuation.definition.string.end.prose',
        "#=punctuation.definition.comment.prose",
        " why=comment.line.number-sign.prose",
      ],
    ]);
  });

  it('reads a `"""` string over several lines, with interpolation, and a comment after it', () => {
    expect(
      tokenize(grammar, 'let brief = session """\nAbout {topic}: "quoted" # not a comment\n""" # a comment'),
    ).toEqual([
      [
        "let=storage.type.prose",
        "brief=variable.other.declaration.prose",
        "==keyword.operator.prose",
        "session=keyword.other.session.prose",
        '"""=punctuation.definition.string.begin.prose',
      ],
      [
        "About =string.quoted.triple.prose",
        "{=punctuation.section.interpolation.begin.prose",
        "topic=variable.other.readwrite.prose",
        "}=punctuation.section.interpolation.end.prose",
        ': "quoted" # not a comment=string.quoted.triple.prose',
      ],
      [
        '"""=punctuation.definition.string.end.prose',
        "#=punctuation.definition.comment.prose",
        " a comment=comment.line.number-sign.prose",
      ],
    ]);
  });

  it("reads `**…**` on one line and `***…***` over several, with interpolation", () => {
    expect(
      tokenize(
        grammar,
        "if **{draft} is done** and retries > 2:\nloop until ***\n  the {draft}\n  is good\n*** (max: 3):",
      ),
    ).toEqual([
      [
        "if=keyword.control.prose",
        "**=punctuation.definition.discretion.begin.prose",
        "{=punctuation.section.interpolation.begin.prose",
        "draft=variable.other.readwrite.prose",
        "}=punctuation.section.interpolation.end.prose",
        " is done=string.unquoted.discretion.prose",
        "**=punctuation.definition.discretion.end.prose",
        "and=keyword.operator.logical.prose",
        ">=keyword.operator.prose",
        "2=constant.numeric.prose",
      ],
      [
        "loop=keyword.control.prose",
        "until=keyword.control.prose",
        "***=punctuation.definition.discretion.begin.prose",
      ],
      [
        "  the =string.unquoted.discretion.multiline.prose",
        "{=punctuation.section.interpolation.begin.prose",
        "draft=variable.other.readwrite.prose",
        "}=punctuation.section.interpolation.end.prose",
      ],
      ["  is good=string.unquoted.discretion.multiline.prose"],
      ["***=punctuation.definition.discretion.end.prose", "3=constant.numeric.prose"],
    ]);
  });

  it("marks escapes, bad escapes, numbers, blocks, calls, pipelines, and keywords only as whole words", () => {
    expect(
      tokenize(grammar, 'block review(draft):\n  x = do review("a\\n\\q", 2.5) | map:\nlet for-each = true'),
    ).toEqual([
      ["block=storage.type.block.prose", "review=entity.name.function.block.prose"],
      [
        "==keyword.operator.prose",
        "do=keyword.control.prose",
        "review=entity.name.function.block.prose",
        '"=punctuation.definition.string.begin.prose',
        "a=string.quoted.double.prose",
        "\\n=constant.character.escape.prose",
        "\\q=invalid.illegal.escape.prose",
        '"=punctuation.definition.string.end.prose',
        "2.5=constant.numeric.prose",
        "|=keyword.operator.pipe.prose",
        "map=keyword.control.pipe.prose",
      ],
      [
        "let=storage.type.prose",
        "for-each=variable.other.declaration.prose",
        "==keyword.operator.prose",
        "true=constant.language.prose",
      ],
    ]);
  });

  it("ends an unterminated string with its line, as the compiler does", () => {
    expect(tokenize(grammar, 'session "open\nsession: writer')).toEqual([
      [
        "session=keyword.other.session.prose",
        '"=punctuation.definition.string.begin.prose',
        "open=string.quoted.double.prose",
      ],
      [
        "session=keyword.other.session.prose",
        ":=punctuation.separator.key-value.prose",
        "writer=entity.name.type.agent.prose",
      ],
    ]);
  });
});

describe("VS Code extension: language configuration and manifest", () => {
  const configuration = JSON.parse(readFileSync(join(extension, "language-configuration.json"), "utf8"));

  it("indents after a line ending in `:` and dedents `else:`, `elif …:`, `catch …:`", () => {
    const increase = new RegExp(configuration.indentationRules.increaseIndentPattern);
    const decrease = new RegExp(configuration.indentationRules.decreaseIndentPattern);
    expect(
      ["block review(draft):", 'parallel ("first"):', "  if **done**:  # why", "agent writer:"].filter((line) =>
        increase.test(line),
      ),
    ).toHaveLength(4);
    expect(
      ["  model: sonnet", "session: writer", '  prompt: "a: b"', "let x = 1"].filter((line) => increase.test(line)),
    ).toEqual([]);
    expect(
      ["  else:", "elif **x**:", "  catch as error:", "finally:"].filter((line) => decrease.test(line)),
    ).toHaveLength(4);
    expect(["  elsewhere = 1", "catcher:"].filter((line) => decrease.test(line))).toEqual([]);
  });

  it("takes hyphenated names as one word, folds by indentation and comments with #", () => {
    const word = new RegExp(configuration.wordPattern.pattern, `g${configuration.wordPattern.flags}`);
    expect('session: security-reviewer "née" 2.5'.match(word)).toEqual(["session", "security-reviewer", "née", "2.5"]);
    expect(configuration.folding).toEqual({ offSide: true });
    expect(configuration.comments).toEqual({ lineComment: "#" });
  });

  it("contributes the `prose` language for .prose files, its grammar and its settings", () => {
    expect(manifest.contributes.languages).toEqual([
      {
        id: "prose",
        aliases: ["OpenProse", "prose"],
        extensions: [".prose"],
        configuration: "./language-configuration.json",
      },
    ]);
    expect(manifest.contributes.grammars).toEqual([
      { language: "prose", scopeName: "source.prose", path: "./syntaxes/prose.tmLanguage.json" },
    ]);
    expect(Object.keys(manifest.contributes.configuration.properties)).toEqual([
      "prose.server.path",
      "prose.strict",
      "prose.trace.server",
    ]);
    expect(manifest.main).toBe("./extension.js");
  });
});

describe("VS Code extension: which prosec it starts", () => {
  const { serverCommand } = require(join(extension, "server-command.js")) as {
    serverCommand(configured: string | undefined, folders: readonly string[], platform?: string): string;
  };

  it("takes the setting, else the workspace's node_modules/.bin/prosec, else prosec on the PATH", () => {
    const without = temporaryFolder("prosec-vscode-");
    const withProsec = temporaryFolder("prosec-vscode-");
    mkdirSync(join(withProsec, "node_modules/.bin"), { recursive: true });
    writeFileSync(join(withProsec, "node_modules/.bin/prosec"), "");
    expect(serverCommand(" /opt/prosec/bin/prosec ", [withProsec])).toBe("/opt/prosec/bin/prosec");
    expect(serverCommand("", [without, withProsec], "linux")).toBe(join(withProsec, "node_modules/.bin/prosec"));
    expect(serverCommand(undefined, [without], "linux")).toBe("prosec");
    expect(serverCommand(undefined, [without], "win32")).toBe("prosec.cmd");
  });
});
