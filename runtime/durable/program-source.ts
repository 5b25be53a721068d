/**
 * The `.prose` text of a running program, read for the run's readable files: the statement a
 * binding came from, and what kind of binding it is.
 */
export type BindingKind = "input" | "output" | "let" | "const";

export class ProgramSource {
  readonly lines: readonly string[];

  constructor(readonly text: string) {
    this.lines = text.split(/\r?\n/);
  }

  /** The statement that starts on `line` (1-based): that line and the more indented lines under it. */
  statement(line: number, maxLines = 20): string {
    const first = this.lines[line - 1];
    if (first === undefined) return "";
    const indent = indentOf(first);
    const taken = [first];
    for (let index = line; index < this.lines.length && taken.length < maxLines; index++) {
      const next = this.lines[index]!;
      if (next.trim() !== "" && indentOf(next) <= indent) break;
      taken.push(next);
    }
    while (taken.length > 1 && taken[taken.length - 1]!.trim() === "") taken.pop();
    return taken.map((text) => text.slice(Math.min(indent, indentOf(text)))).join("\n");
  }

  /** What a binding made at `line`:`column` (the name's position) is: the keyword before the name says. */
  bindingKind(line: number, column: number): BindingKind {
    const before = (this.lines[line - 1] ?? "").slice(0, column - 1).trim();
    return before === "const" || before === "output" ? before : "let";
  }
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** A Markdown code fence longer than any run of backticks in `text`, so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}
