/**
 * A program's outline: where each statement stands among its siblings, by indentation, so that a
 * step's structure can name its construct by structure rather than by `line:column`.
 *
 * A statement's site is the path of ordinals from the top (`s3.0.1`: the second child of the first
 * child of the fourth top-level statement). Comment and blank lines are not statements, and the
 * lines of a `"""` string belong to the statement that opened it, so adding either moves nothing.
 *
 * When a run resumes with a changed program, the new outline is aligned with the one the run
 * recorded (`aligned`): each list of siblings is diffed against the old one by the statements' text,
 * a statement kept (or edited in place) takes its old site, and a statement that is new gets a site
 * of its own (`n...`) that no recorded step has. Edits elsewhere thus leave a construct's site as it was.
 */
// The one function (with what it imports), not the package index and its 18 other modules.
import { diffArrays } from "diff/lib/diff/array.js";

interface Statement {
  readonly line: number;
  readonly indent: number;
  /** The statement's own lines (with a `"""` string's), whitespace collapsed: what the diff compares. */
  text: string;
  readonly children: Statement[];
}

export class ProgramOutline {
  private readonly sites = new Map<number, string>();

  private constructor(readonly statements: readonly Statement[]) {}

  /** The outline of `text`, each statement at its own site. */
  static of(text: string): ProgramOutline {
    const outline = new ProgramOutline(parseStatements(text));
    outline.number(outline.statements, "s");
    return outline;
  }

  /** The outline of `text`, sites taken from `previous` where statements were kept (see above). */
  static aligned(text: string, previous: string): ProgramOutline {
    const outline = new ProgramOutline(parseStatements(text));
    outline.align(outline.statements, parseStatements(previous), "s", "n");
    return outline;
  }

  /** The site of the statement that starts on `line` (or holds it), undefined for a line outside any. */
  site(line: number): string | undefined {
    const exact = this.sites.get(line);
    if (exact !== undefined) return exact;
    let found: string | undefined;
    let best = 0;
    for (const [start, site] of this.sites) if (start <= line && start > best) [best, found] = [start, site];
    if (found !== undefined) this.sites.set(line, found);
    return found;
  }

  /** The line of the statement at `site`, undefined when no statement has it (it was removed). */
  lineOf(site: string): number | undefined {
    return this.find((statement) => this.sites.get(statement.line) === site)?.line;
  }

  /**
   * The statement that starts on `line` with every statement under it, as the outline compares them
   * (comment lines left out, whitespace collapsed): equal blocks ask the same, whatever their lines.
   */
  block(line: number): string | undefined {
    const statement = this.find((candidate) => candidate.line === line);
    const text = (of: Statement): string => [of.text, ...of.children.map(text)].join("\n");
    return statement === undefined ? undefined : text(statement);
  }

  /** The definition of agent `name` with its properties, as `block` gives it; undefined when there is none. */
  agentBlock(name: string): string | undefined {
    const definition = this.statements.find((statement) => statement.text === `agent ${name}:`);
    return definition === undefined ? undefined : this.block(definition.line);
  }

  private find(test: (statement: Statement) => boolean, among = this.statements): Statement | undefined {
    for (const statement of among) {
      if (test(statement)) return statement;
      const found = this.find(test, statement.children);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private number(statements: readonly Statement[], prefix: string): void {
    statements.forEach((statement, index) => {
      const site = `${prefix}${index}`;
      this.sites.set(statement.line, site);
      this.number(statement.children, `${site}.`);
    });
  }

  private align(now: readonly Statement[], before: readonly Statement[], prefix: string, fresh: string): void {
    let oldIndex = 0;
    let newIndex = 0;
    let removed: number[] = [];
    const keep = (statement: Statement, old: Statement, site: string): void => {
      this.sites.set(statement.line, site);
      this.align(statement.children, old.children, `${site}.`, `${site}.n`);
    };
    const changes = diffArrays(
      before.map((statement) => statement.text),
      now.map((statement) => statement.text),
    );
    for (const change of changes) {
      if (change.removed) {
        removed = Array.from({ length: change.count }, (_, offset) => oldIndex + offset);
        oldIndex += change.count;
        continue;
      }
      if (change.added) {
        // Statements added where others were removed are those statements edited in place.
        for (let offset = 0; offset < change.count; offset++) {
          const statement = now[newIndex + offset]!;
          const replaced = removed[offset];
          if (replaced === undefined) {
            const site = `${fresh}${statement.line}`;
            this.sites.set(statement.line, site);
            this.number(statement.children, `${site}.`);
          } else keep(statement, before[replaced]!, `${prefix}${replaced}`);
        }
        newIndex += change.count;
        removed = [];
        continue;
      }
      removed = [];
      for (let offset = 0; offset < change.count; offset++)
        keep(now[newIndex + offset]!, before[oldIndex + offset]!, `${prefix}${oldIndex + offset}`);
      oldIndex += change.count;
      newIndex += change.count;
    }
  }
}

function parseStatements(text: string): Statement[] {
  const top: Statement[] = [];
  const open: Statement[] = [];
  let inString: Statement | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const trimmed = raw.trim();
    const quotes = raw.split('"""').length - 1;
    if (inString !== undefined) {
      inString.text += ` ${trimmed}`;
      if (quotes % 2 === 1) inString = undefined;
      return;
    }
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const indent = raw.length - raw.trimStart().length;
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    const statement: Statement = { line: index + 1, indent, text: trimmed.replace(/\s+/g, " "), children: [] };
    (open.length === 0 ? top : open[open.length - 1]!.children).push(statement);
    open.push(statement);
    if (quotes % 2 === 1) inString = statement;
  });
  return top;
}
