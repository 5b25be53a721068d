/**
 * `returns: T`: the type subset of DIALECT.md ("Typed results"), read by a small parser of its own
 * because its syntax (`T[]`, `key?: T`, `|` between types) is not the expression grammar's. The
 * lexer hands it the text after `returns:`; a type may go on over lines while a bracket is open and
 * the lines are indented under the property. One error per annotation: its first, with a hint of
 * what to write instead (`int` → `number`, `Array<T>` → `T[]`, `string?` → `key?: string`).
 */
import type { RecordTypeField, ResultType, SourceRange, TypeAnnotation } from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import type { LineMap } from "./line-map.js";
import { nestingLimit } from "./nesting.js";
import { editDistance } from "./spelling.js";

interface TypeToken {
  readonly kind: "name" | "string" | "number" | "punctuation" | "unknown";
  readonly text: string;
  /** A string literal's value, after its escapes. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

const PRIMITIVES = ["string", "number", "boolean", "null"] as const;
type Primitive = (typeof PRIMITIVES)[number];

/** What to write instead of a name TypeScript users reach for. */
const INSTEAD: Readonly<Record<string, string>> = {
  int: "write `number`: JSON has one number type",
  integer: "write `number`: JSON has one number type",
  float: "write `number`: JSON has one number type",
  double: "write `number`: JSON has one number type",
  bigint: "write `number`: JSON has one number type",
  Number: "write `number`",
  String: "write `string`",
  str: "write `string`",
  text: "write `string`",
  Boolean: "write `boolean`",
  bool: "write `boolean`",
  true: 'write `boolean`, or a string literal such as `"yes"`',
  false: 'write `boolean`, or a string literal such as `"no"`',
  any: "say what the value holds: a record `{ key: T }`, a list `T[]`, or a union `A | B`",
  unknown: "say what the value holds: a record `{ key: T }`, a list `T[]`, or a union `A | B`",
  object: "write the record's fields: `{ key: T, other?: T }`",
  Object: "write the record's fields: `{ key: T, other?: T }`",
  Record: "write the record's fields: `{ key: T, other?: T }`",
  undefined: "a field that may be left out is `key?: T`; a value that may be missing is `T | null`",
  void: "a field that may be left out is `key?: T`; a value that may be missing is `T | null`",
  Date: 'write `string` (JSON has no dates): say the format in the prompt, e.g. "an ISO 8601 date"',
};

export interface ScannedType {
  readonly annotation: TypeAnnotation;
  /** Where the lexer goes on: the end of the type's last line (before its line break). */
  readonly end: number;
}

/** Reads the type that starts at `start` (just after `returns:`) on a line indented `indent`. */
export function scanResultType(lines: LineMap, start: number, indent: number, diagnostics: Diagnostic[]): ScannedType {
  const { tokens, end, problem } = tokenize(lines, start, indent);
  const loc = tokens.length === 0 ? lines.range(start, end) : lines.range(tokens[0]!.start, tokens.at(-1)!.end);
  if (problem !== undefined) {
    diagnostics.push(problem);
    return { annotation: { kind: "TypeAnnotation", type: null, loc }, end };
  }
  if (tokens.length === 0) {
    diagnostics.push(
      parseMessages.malformedType(
        lines.range(start, end),
        "has no type",
        "write the type of the session's result: `returns: [{ title: string }]`",
      ),
    );
    return { annotation: { kind: "TypeAnnotation", type: null, loc }, end };
  }
  const parser = new TypeParser(lines, tokens);
  try {
    const type = parser.parse();
    return { annotation: { kind: "TypeAnnotation", type, loc }, end };
  } catch (error) {
    if (!(error instanceof TypeProblem)) throw error;
    diagnostics.push(error.diagnostic);
    return { annotation: { kind: "TypeAnnotation", type: null, loc }, end };
  }
}

class TypeProblem extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

const OPENERS: Readonly<Record<string, string>> = { "[": "]", "{": "}", "(": ")" };

function tokenize(
  lines: LineMap,
  start: number,
  indent: number,
): { tokens: TypeToken[]; end: number; problem?: Diagnostic } {
  const source = lines.source;
  const tokens: TypeToken[] = [];
  const open: TypeToken[] = [];
  let index = start;
  let lineEnd = endOfLine(source, index);
  for (;;) {
    if (index >= lineEnd) {
      // A line break ends the type unless a bracket is open and the next line is indented under the property.
      const next = lineEnd + 1;
      if (open.length === 0 || next >= source.length || !continues(source, next, indent)) break;
      index = next;
      lineEnd = endOfLine(source, index);
      continue;
    }
    const character = source[index]!;
    if (character === " " || character === "\t" || character === "\r") {
      index++;
      continue;
    }
    if (character === "#") {
      index = lineEnd;
      continue;
    }
    const token = readToken(source, index, lineEnd);
    if (token.kind === "string" && source[token.end - 1] !== token.text[0])
      return {
        tokens,
        end: lineEnd,
        problem: parseMessages.malformedType(lines.range(token.start, token.end), "has a string that is not closed"),
      };
    // Own keys only: a field named `toString` or `__proto__` is no bracket.
    if (Object.hasOwn(OPENERS, token.text)) {
      open.push(token);
      // The type parser recurses once per bracket: deeper than this it would run out of stack.
      if (open.length > nestingLimit)
        return {
          tokens,
          end: lineEnd,
          problem: parseMessages.malformedType(
            lines.range(token.start, token.end),
            `nests brackets more than ${nestingLimit} levels deep`,
            "write a type a model can follow: name fewer levels, or return text and read it in the next step",
          ),
        };
    } else if (token.text === "]" || token.text === "}" || token.text === ")") {
      const opener = open.pop();
      if (opener === undefined || OPENERS[opener.text] !== token.text)
        return {
          tokens,
          end: lineEnd,
          problem: parseMessages.malformedType(
            lines.range(token.start, token.end),
            opener === undefined
              ? `has a \`${token.text}\` that closes nothing`
              : `closes \`${opener.text}\` with \`${token.text}\``,
          ),
        };
    }
    tokens.push(token);
    index = token.end;
  }
  const unclosed = open.at(-1);
  if (unclosed !== undefined)
    return {
      tokens,
      end: lineEnd,
      problem: parseMessages.malformedType(
        lines.range(unclosed.start, unclosed.end),
        `has a \`${unclosed.text}\` that is not closed`,
        `close it with \`${OPENERS[unclosed.text]}\`; a type over several lines indents them under \`returns:\``,
      ),
    };
  return { tokens, end: lineEnd };
}

function endOfLine(source: string, index: number): number {
  const end = source.indexOf("\n", index);
  return end === -1 ? source.length : end;
}

/** Whether the line at `lineStart` is indented deeper than `indent` and is not blank. */
function continues(source: string, lineStart: number, indent: number): boolean {
  let index = lineStart;
  while (source[index] === " " || source[index] === "\t") index++;
  return index - lineStart > indent || source[index] === "]" || source[index] === "}" || source[index] === ")";
}

function readToken(source: string, start: number, lineEnd: number): TypeToken {
  const character = source[start]!;
  if (character === '"' || character === "'") {
    let value = "";
    let index = start + 1;
    while (index < lineEnd && source[index] !== character) {
      if (source[index] === "\\" && index + 1 < lineEnd) {
        const escaped = source[index + 1]!;
        value += escaped === "n" ? "\n" : escaped === "t" ? "\t" : escaped;
        index += 2;
      } else value += source[index++];
    }
    const end = Math.min(index + 1, lineEnd);
    return { kind: "string", text: source.slice(start, end), value, start, end };
  }
  const name = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(source.slice(start, lineEnd));
  if (name !== null) return { kind: "name", text: name[0], value: name[0], start, end: start + name[0].length };
  const number = /^\d+(?:\.\d+)?/.exec(source.slice(start, lineEnd));
  if (number !== null)
    return { kind: "number", text: number[0], value: number[0], start, end: start + number[0].length };
  const kind = "[]{}()|,;:?<>".includes(character) ? "punctuation" : "unknown";
  return { kind, text: character, value: character, start, end: start + 1 };
}

class TypeParser {
  private index = 0;

  constructor(
    private readonly lines: LineMap,
    private readonly tokens: readonly TypeToken[],
  ) {}

  parse(): ResultType {
    const type = this.union();
    const extra = this.peek();
    if (extra !== undefined) this.fail(extra, `has ${describe(extra)} after the type`);
    return type;
  }

  private union(): ResultType {
    const first = this.peek();
    if (first?.text === "|") this.index++;
    const members = [this.postfix()];
    while (this.peek()?.text === "|") {
      this.index++;
      members.push(this.postfix());
    }
    if (members.length === 1) return members[0]!;
    return { kind: "union", members, loc: this.span(members[0]!.loc, members.at(-1)!.loc) };
  }

  private postfix(): ResultType {
    const startToken = this.peek();
    let type = this.primary();
    for (;;) {
      const next = this.peek();
      if (next?.text === "[" && this.tokens[this.index + 1]?.text === "]") {
        const close = this.tokens[this.index + 1]!;
        this.index += 2;
        type = { kind: "list", element: type, loc: this.lines.range(startToken!.start, close.end) };
      } else if (next?.text === "?") {
        throw new TypeProblem(
          parseMessages.optionalType(
            this.lines.range(startToken!.start, next.end),
            this.text(startToken!, this.tokens[this.index - 1]!),
          ),
        );
      } else return type;
    }
  }

  private primary(): ResultType {
    const token = this.peek();
    if (token === undefined) {
      const last = this.tokens.at(-1)!;
      throw new TypeProblem(
        parseMessages.malformedType(
          this.lines.range(last.end, last.end),
          `ends after ${describe(last)}: a type is missing`,
        ),
      );
    }
    this.index++;
    const loc = this.lines.range(token.start, token.end);
    if (token.kind === "string") return { kind: "literal", value: token.value, loc };
    if (token.kind === "name") {
      if ((PRIMITIVES as readonly string[]).includes(token.text))
        return { kind: "primitive", name: token.text as Primitive, loc };
      throw new TypeProblem(parseMessages.unknownTypeName(loc, token.text, this.hintFor(token)));
    }
    if (token.kind === "number")
      throw new TypeProblem(
        parseMessages.unknownTypeName(
          loc,
          token.text,
          `write \`number\`, or a string literal such as \`"${token.text}"\``,
        ),
      );
    switch (token.text) {
      case "[": {
        if (this.peek()?.text === "]")
          throw new TypeProblem(
            parseMessages.malformedType(
              this.lines.range(token.start, this.peek()!.end),
              "has a list type without its item type",
              "write the items' type: `string[]` or `[string]`",
            ),
          );
        const element = this.union();
        const close = this.expect("]");
        return { kind: "list", element, loc: this.lines.range(token.start, close.end) };
      }
      case "{":
        return this.record(token);
      case "(": {
        const inner = this.union();
        this.expect(")");
        return inner;
      }
      default:
        return this.fail(token, `has ${describe(token)} where a type belongs`);
    }
  }

  private record(open: TypeToken): ResultType {
    const fields: RecordTypeField[] = [];
    for (;;) {
      const token = this.peek();
      if (token === undefined) return this.fail(open, "has a `{` that is not closed");
      if (token.text === "}") {
        this.index++;
        return { kind: "record", fields, loc: this.lines.range(open.start, token.end) };
      }
      if (token.kind !== "name" && token.kind !== "string")
        return this.fail(token, `has ${describe(token)} where a field's name belongs`);
      // JSON schemas and answers built in JavaScript take `__proto__` for the object's prototype: the
      // field would vanish from the schema, and every answer would be refused.
      if (token.value === "__proto__")
        throw new TypeProblem(
          parseMessages.malformedType(
            this.lines.range(token.start, token.end),
            "names a field `__proto__`, which no answer can carry",
            "give the field another name",
          ),
        );
      this.index++;
      const optional = this.peek()?.text === "?";
      if (optional) this.index++;
      this.expect(":");
      const type = this.union();
      const loc = this.lines.range(token.start, this.tokens[this.index - 1]!.end);
      const first = fields.find((field) => field.key === token.value);
      if (first !== undefined)
        throw new TypeProblem(
          parseMessages.duplicateTypeKey(this.lines.range(token.start, token.end), token.value, first.loc),
        );
      fields.push({ key: token.value, optional, type, loc });
      const separator = this.peek();
      if (separator?.text === "," || separator?.text === ";") this.index++;
      else if (separator !== undefined && separator.text !== "}")
        return this.fail(separator, `has ${describe(separator)} where \`,\` or \`}\` belongs`);
    }
  }

  /** The hint for a name that is not a type: what TypeScript users mean by it, or the primitive it misspells. */
  private hintFor(token: TypeToken): string {
    const next = this.peek();
    if ((token.text === "Array" || token.text === "ReadonlyArray") && next?.text === "<") {
      const close = this.tokens.findIndex((each, index) => index > this.index && each.text === ">");
      const inner = close === -1 ? "T" : this.text(this.tokens[this.index + 1]!, this.tokens[close - 1]!);
      return `write \`${inner.includes("|") ? `(${inner})` : inner}[]\` (or \`[${inner}]\`)`;
    }
    const known = Object.hasOwn(INSTEAD, token.text) ? INSTEAD[token.text] : undefined;
    if (known !== undefined) return known;
    const near = PRIMITIVES.find((name) => editDistance(token.text.toLowerCase(), name, 2) <= 2);
    if (near !== undefined) return `did you mean \`${near}\`?`;
    return 'the types are string, number, boolean, null, "literal", A | B, T[] or [T], and { key: T, key?: T }; a record\'s fields are written out';
  }

  private expect(text: string): TypeToken {
    const token = this.peek();
    if (token?.text !== text) {
      const at = token ?? this.tokens.at(-1)!;
      return this.fail(
        at,
        token === undefined ? `ends where \`${text}\` belongs` : `has ${describe(token)} where \`${text}\` belongs`,
      );
    }
    this.index++;
    return token;
  }

  private fail(token: TypeToken, problem: string): never {
    throw new TypeProblem(parseMessages.malformedType(this.lines.range(token.start, token.end), problem));
  }

  private peek(): TypeToken | undefined {
    return this.tokens[this.index];
  }

  private text(first: TypeToken, last: TypeToken): string {
    return this.lines.source.slice(first.start, last.end).replace(/\s+/g, " ");
  }

  private span(first: SourceRange, last: SourceRange): SourceRange {
    return { start: first.start, end: last.end };
  }
}

function describe(token: TypeToken): string {
  return token.kind === "name" ? `\`${token.text}\`` : token.kind === "string" ? "a string" : `\`${token.text}\``;
}
