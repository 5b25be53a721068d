/**
 * Metamorphic properties of layout: a program's meaning does not depend on how its lines are ended or
 * indented. For generated programs (test/support/program-generator.ts) and the corpus, seeded:
 *
 * - CRLF line ends and a byte order mark at the start change no diagnostic (line, column, code or
 *   message), and the module is the same but for the program's text and the hashes of it;
 * - indentation scaled ×2 or ×3, comment-only lines at any indentation and whitespace-only lines
 *   change no diagnostic's code.
 */
import { describe, expect, it } from "vitest";
import { lowerSource } from "../../src/compile.js";
import { checkSource } from "../../src/pipeline.js";
import { corpusPrograms } from "../support/corpus.js";
import { generateProgram } from "../support/program-generator.js";
import { seededRandom } from "../support/random.js";

const programs: ReadonlyArray<readonly [string, string]> = [
  ...Array.from({ length: 80 }, (_, index) => {
    const seed = index + 1;
    return [`seed ${seed}`, generateProgram(seed, 6 + (seed % 5), 1 + (seed % 4)).files["main.prose"]!] as const;
  }),
  ...corpusPrograms.map((program) => [program.name, program.source] as const),
];

const located = (source: string) =>
  checkSource(source).diagnostics.map(
    (diagnostic) =>
      `${diagnostic.range.start.line}:${diagnostic.range.start.column} ${diagnostic.code} ${diagnostic.message}`,
  );
const codes = (source: string) =>
  checkSource(source)
    .diagnostics.map((diagnostic) => diagnostic.code)
    .sort();

/** Each line's leading spaces times `factor`: the same nesting at another indentation width. */
function reindented(source: string, factor: number): string {
  return source
    .split("\n")
    .map((line) => {
      const width = /^ */.exec(line)![0].length;
      return " ".repeat(width * factor) + line.slice(width);
    })
    .join("\n");
}

/** Comment-only and whitespace-only lines after random lines, at random indentation. */
function withQuietLines(source: string, random: () => number): string {
  return source
    .split("\n")
    .flatMap((line) => [
      line,
      ...(random() < 0.2 ? [`${" ".repeat(Math.floor(random() * 9))}# a note`] : []),
      ...(random() < 0.1 ? [" ".repeat(Math.floor(random() * 5))] : []),
    ])
    .join("\n");
}

/** The module from `export async function run` on: what runs, without the text and its hashes. */
function body(source: string): string | undefined {
  const { code } = lowerSource(source, "main.prose");
  return code?.slice(code.indexOf("export async function run"));
}

describe("layout does not change a program's meaning", () => {
  it("CRLF line ends and a leading byte order mark: the same diagnostics, at the same places", () => {
    for (const [name, source] of programs) {
      const expected = located(source);
      expect(located(source.replace(/\n/g, "\r\n")), `${name}, CRLF`).toEqual(expected);
      expect(located(`\ufeff${source}`), `${name}, byte order mark`).toEqual(expected);
    }
  });

  it("CRLF line ends and a leading byte order mark: the same module", () => {
    for (const [name, source] of programs.slice(0, 12)) {
      const expected = body(source);
      expect(body(`\ufeff${source.replace(/\n/g, "\r\n")}`), name).toBe(expected);
    }
  }, 60_000);

  it("indentation ×2 or ×3, comment lines and blank lines anywhere: the same diagnostic codes (seed 5)", () => {
    const random = seededRandom(5);
    for (const [name, source] of programs) {
      const expected = codes(source);
      expect(codes(reindented(source, 2)), `${name}, indentation ×2`).toEqual(expected);
      expect(codes(reindented(source, 3)), `${name}, indentation ×3`).toEqual(expected);
      expect(codes(withQuietLines(source, random)), `${name}, quiet lines`).toEqual(expected);
    }
  });
});
