/** Seeded edits of a program's lines: what a person half-way through typing leaves behind. */
import { pick } from "./random.js";

export type Mutation = (lines: string[], random: () => number) => string[];

export const at = (random: () => number, length: number) => Math.floor(random() * Math.max(length, 1));

export const mutations: Record<string, Mutation> = {
  deleteLine: (lines, random) => lines.toSpliced(at(random, lines.length), 1),
  duplicateLine: (lines, random) => {
    const index = at(random, lines.length);
    return lines.toSpliced(index, 0, lines[index] ?? "");
  },
  swapLines: (lines, random) => {
    const copy = [...lines];
    const a = at(random, copy.length);
    const b = at(random, copy.length);
    [copy[a], copy[b]] = [copy[b] ?? "", copy[a] ?? ""];
    return copy;
  },
  reindent: (lines, random) => {
    const index = at(random, lines.length);
    const indentation = pick(random, ["", " ", "   ", "\t", "        ", "  \t "]);
    return lines.with(index, indentation + (lines[index] ?? "").trimStart());
  },
  deleteCharacter: (lines, random) =>
    editCharacter(lines, random, (line, column) => line.slice(0, column) + line.slice(column + 1)),
  duplicateCharacter: (lines, random) =>
    editCharacter(lines, random, (line, column) => line.slice(0, column + 1) + line.slice(column)),
  swapCharacters: (lines, random) =>
    editCharacter(
      lines,
      random,
      (line, column) =>
        line.slice(0, column) +
        line.slice(column + 1, column + 2) +
        line.slice(column, column + 1) +
        line.slice(column + 2),
    ),
  insertSyntax: (lines, random) =>
    editCharacter(
      lines,
      random,
      (line, column) =>
        line.slice(0, column) +
        pick(random, ['"', '"""', "***", "**", "{", "(", "]", ":", "\\", "#", "->", "|", "\r"]) +
        line.slice(column),
    ),
  truncate: (lines, random) => {
    const text = lines.join("\n");
    return text.slice(0, at(random, text.length)).split("\n");
  },
};

function editCharacter(
  lines: string[],
  random: () => number,
  edit: (line: string, column: number) => string,
): string[] {
  const index = at(random, lines.length);
  const line = lines[index] ?? "";
  return lines.with(index, edit(line, at(random, line.length)));
}
