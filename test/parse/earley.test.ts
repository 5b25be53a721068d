/**
 * earley.ts parses statements in nearley's place (nearley only explains failures). Both must give the
 * same answer for every statement: the same parses in the same order, or none. Checked on every
 * top-level statement of the corpus and of seeded mutations of it, which break statements in the
 * ways people do.
 */
import nearley from "nearley";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/diagnostics/diagnostic.js";
import { EarleyParser } from "../../src/phases/1-parse/earley.js";
import compiledGrammar from "../../src/phases/1-parse/grammar.js";
import { TokenStream } from "../../src/phases/1-parse/grammar-support.js";
import { layout } from "../../src/phases/1-parse/layout.js";
import { scan } from "../../src/phases/1-parse/lexer.js";
import { LineMap } from "../../src/phases/1-parse/line-map.js";
import { topLevelStatements } from "../../src/phases/1-parse/parser.js";
import { regionToSkip, skip } from "../../src/phases/1-parse/recovery.js";
import type { Token } from "../../src/phases/1-parse/token.js";
import { corpusPrograms, roadmapSketches } from "../support/corpus.js";
import { at, mutations } from "../support/mutations.js";
import { pick, seededRandom } from "../support/random.js";

const grammar = nearley.Grammar.fromCompiled(compiledGrammar as unknown as nearley.CompiledRules);
const earley = new EarleyParser(grammar);

function withNearley(tokens: readonly Token[]): unknown[] | undefined {
  return nearleyParse(tokens).parses;
}

/** nearley's parses, or where it fails (the failing token's index; the length for the end). */
function nearleyParse(tokens: readonly Token[]): { parses?: unknown[]; at: number } {
  const stream = new TokenStream();
  stream.load(tokens);
  const parser = new nearley.Parser(grammar, { lexer: stream as unknown as nearley.Lexer });
  try {
    parser.feed("");
  } catch (error) {
    return { at: tokens.indexOf((error as { token: Token }).token) };
  }
  return parser.results.length === 0 ? { at: tokens.length } : { parses: parser.results as unknown[], at: -1 };
}

/** Compares the two engines on every statement of `source`; returns how many statements had parses. */
function compare(source: string, where: string): { parsed: number; failed: number } {
  const lines = new LineMap(source);
  const diagnostics: Diagnostic[] = [];
  let parsed = 0;
  let failed = 0;
  for (const chunk of topLevelStatements(layout(lines, scan(lines, diagnostics), diagnostics))) {
    const expected = withNearley(chunk);
    expect(earley.parse(chunk), `${where}, statement at line ${chunk[0]!.loc.start.line}`).toEqual(expected);
    if (expected === undefined) failed++;
    else parsed++;
  }
  return { parsed, failed };
}

describe("earley.ts against nearley", () => {
  it("gives nearley's parses for every statement of the corpus and the roadmap sketches", () => {
    let parsed = 0;
    for (const program of [...corpusPrograms, ...roadmapSketches])
      parsed += compare(program.source, program.name).parsed;
    expect(parsed).toBeGreaterThan(700);
  });

  it("agrees on seeded mutations, parse or no parse", () => {
    const random = seededRandom(20261123);
    const names = Object.keys(mutations);
    let failed = 0;
    for (let run = 0; run < 300; run++) {
      const program = pick(random, corpusPrograms);
      let lines = program.source.split("\n");
      for (let edit = 1 + at(random, 3); edit > 0; edit--) lines = mutations[pick(random, names)]!(lines, random);
      failed += compare(lines.join("\n"), `run ${run} (${program.name})`).failed;
    }
    // Enough statements must fail for the comparison of failures to mean something.
    expect(failed).toBeGreaterThan(100);
  });

  it("agrees on statements with skipped lines in them (error recovery), at every step of recovery", () => {
    const random = seededRandom(20261124);
    let skipped = 0;
    for (let run = 0; run < 150; run++) {
      const program = pick(random, corpusPrograms);
      const lines = program.source.split("\n");
      const line = at(random, lines.length);
      lines[line] = `${lines[line]} %%`;
      const map = new LineMap(lines.join("\n"));
      const diagnostics: Diagnostic[] = [];
      for (const chunk of topLevelStatements(layout(map, scan(map, diagnostics), diagnostics))) {
        let tokens: readonly Token[] = chunk;
        for (let step = 0; step < 20; step++) {
          const expected = nearleyParse(tokens);
          expect(earley.parse(tokens), `run ${run} (${program.name}), step ${step}`).toEqual(expected.parses);
          const region = expected.parses === undefined ? regionToSkip(tokens, expected.at).region : undefined;
          if (region === undefined) break;
          tokens = skip(tokens, region);
          skipped++;
        }
      }
    }
    expect(skipped).toBeGreaterThan(30);
  });
});
