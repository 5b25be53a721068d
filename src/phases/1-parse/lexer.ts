import moo from "moo";
import type { Discretion, StringLiteral } from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import type { LineMap } from "./line-map.js";
import { scanResultType } from "./result-type.js";
import { scanText } from "./strings.js";
import { tripleCloser } from "./triple-closer.js";
import { layoutToken, type Token } from "./token.js";

/**
 * Tokens within one physical line. Triple-quoted strings and `***` discretions may span lines, so
 * the scanner below finds their ends itself and restarts moo after them.
 */
const lineLexer = moo.compile({
  space: /[ \t]+/u,
  comment: /#.*/u,
  tripleQuote: '"""',
  string: /"(?:\\.|[^"\\])*"/u,
  openString: /"(?:\\.|[^"\\])*/u,
  tripleStar: "***",
  discretion: /\*\*(?:[^*]|\*(?!\*))+\*\*/u,
  // `**` ending its line opens a discretion over several lines, closed by the next `**`.
  lineEndDiscretion: /\*\*(?!\*)[ \t]*$/u,
  // `**` with no closing `**` on its line: reported, then read as a condition up to the line end.
  openDiscretion: /\*\*(?!\*).*/u,
  number: /\d+(?:\.\d+)?(?![\p{L}_])/u,
  name: /[\p{L}_][\p{L}\p{N}_]*(?:-[\p{L}\p{N}_]+)*/u,
  punctuation: [
    "->",
    "==",
    "!=",
    "<=",
    ">=",
    "<",
    ">",
    "=",
    ":",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ".",
    "|",
    "+",
    "-",
    "*",
    "/",
  ],
  unknown: { match: /[^]/u, lineBreaks: true },
});

/**
 * Scans the source into tokens, lazily so that a long program never holds all its tokens at once.
 * Every physical line end becomes a NEWLINE token for the layout pass. Problems go to `diagnostics`.
 */
export function* scan(lines: LineMap, diagnostics: Diagnostic[]): Generator<Token> {
  const source = lines.source;
  let previous: Token | undefined;
  // After a byte order mark, if the file opens with one.
  let position = lines.lineStart(1);

  const lexer = (lineLexer as moo.Lexer & { clone(): moo.Lexer }).clone();

  while (position <= source.length) {
    let lineEnd = source.indexOf("\n", position);
    if (lineEnd === -1) lineEnd = source.length;
    const contentEnd = lineEnd > position && source[lineEnd - 1] === "\r" ? lineEnd - 1 : lineEnd;
    lexer.reset(source.slice(position, contentEnd));
    let resumeAt = -1;

    for (let token = lexer.next(); token !== undefined && resumeAt === -1; token = lexer.next()) {
      const offset = position + token.offset;
      const end = offset + token.text.length;
      let produced: Token | undefined;
      switch (token.type) {
        case "space":
        case "comment":
          break;
        case "tripleQuote":
        case "tripleStar": {
          const closed =
            token.type === "tripleQuote"
              ? scanTripleString(lines, offset, diagnostics)
              : scanMultilineDiscretion(lines, offset, "***", diagnostics);
          produced = closed.token;
          resumeAt = closed.end;
          break;
        }
        case "string":
        case "openString": {
          const closed = token.type === "string";
          if (!closed) diagnostics.push(parseMessages.unterminatedString(lines.range(offset, end), false));
          const node = stringNode(lines, offset, end, closed ? 1 : 0, false, diagnostics);
          produced = { type: "string", text: token.text, value: token.text, loc: node.loc, node };
          break;
        }
        case "lineEndDiscretion": {
          const closed = scanMultilineDiscretion(lines, offset, "**", diagnostics);
          produced = closed.token;
          resumeAt = closed.end;
          break;
        }
        case "discretion":
        case "openDiscretion": {
          const closed = token.type === "discretion";
          if (!closed) diagnostics.push(parseMessages.unterminatedDiscretion(lines.range(offset, offset + 2), "**"));
          const node = discretionNode(lines, offset, end, 2, false, closed);
          produced = { type: "discretion", text: token.text, value: token.text, loc: node.loc, node };
          break;
        }
        case "name": {
          // `returns:` opening a line holds a type, which the type parser reads (result-type.ts).
          const colon =
            token.text === "returns" && (previous === undefined || previous.type === "NEWLINE")
              ? /^[ \t]*:/.exec(source.slice(end, contentEnd))
              : null;
          if (colon === null) {
            produced = { type: "name", text: token.text, value: token.text, loc: lines.range(offset, end) };
            break;
          }
          yield { type: "name", text: token.text, value: token.text, loc: lines.range(offset, end) };
          const colonEnd = end + colon[0].length;
          yield { type: "punctuation", text: ":", value: ":", loc: lines.range(colonEnd - 1, colonEnd) };
          const scanned = scanResultType(lines, colonEnd, lines.indentationAt(offset), diagnostics);
          const text = source.slice(colonEnd, scanned.end);
          produced = { type: "type", text, value: text, loc: scanned.annotation.loc, node: scanned.annotation };
          resumeAt = scanned.end;
          break;
        }
        default: {
          const loc = lines.range(offset, end);
          const adjacent = token.text === "(" && previous?.type === "name" && previous.loc.end.offset === offset;
          produced = adjacent
            ? { type: "punctuation", text: token.text, value: token.text, loc, adjacent }
            : { type: token.type as Token["type"], text: token.text, value: token.text, loc };
        }
      }
      if (produced) {
        previous = produced;
        yield produced;
      }
    }

    if (resumeAt !== -1) {
      // Lex the rest of the line that held the closing delimiter, without ending the line.
      position = resumeAt;
      continue;
    }
    previous = layoutToken("NEWLINE", lines.range(contentEnd, lineEnd));
    yield previous;
    position = lineEnd + 1;
  }
}

function stringNode(
  lines: LineMap,
  start: number,
  end: number,
  closerLength: number,
  triple: boolean,
  diagnostics: Diagnostic[],
): StringLiteral {
  const openerLength = triple ? 3 : 1;
  const scanned = scanText(lines, start + openerLength, end - closerLength, !triple);
  diagnostics.push(...scanned.diagnostics);
  return { kind: "String", value: scanned.value, triple, parts: scanned.parts, loc: lines.range(start, end) };
}

function discretionNode(
  lines: LineMap,
  start: number,
  end: number,
  delimiter: number,
  multiline: boolean,
  closed = true,
): Discretion {
  const scanned = scanText(lines, start + delimiter, closed ? end - delimiter : end, false);
  return { kind: "Discretion", text: scanned.value, multiline, parts: scanned.parts, loc: lines.range(start, end) };
}

interface Closed {
  readonly token: Token;
  readonly end: number;
}

/** A `"""` string: it ends where `tripleCloser` says, and a run of more than three quotes there closes with its last three. */
function scanTripleString(lines: LineMap, start: number, diagnostics: Diagnostic[]): Closed {
  const source = lines.source;
  const closer = tripleCloser(lines, start);
  if (closer === -1) {
    const end = source.length;
    diagnostics.push(parseMessages.unterminatedString(lines.range(start, start + 3), true));
    const node = stringNode(lines, start, end, 0, true, diagnostics);
    return { token: stringToken(source.slice(start, end), node), end };
  }
  const end = skipQuotes(source, closer);
  const node = stringNode(lines, start, end, 3, true, diagnostics);
  return { token: stringToken(source.slice(start, end), node), end };
}

function stringToken(text: string, node: StringLiteral): Token {
  return { type: "string", text, value: text, loc: node.loc, node };
}

function skipQuotes(source: string, index: number): number {
  let end = index;
  while (source[end] === '"') end++;
  return end;
}

/** `***` ... `***`, or `**` ending its line ... the next `**`: a discretion over several lines. */
function scanMultilineDiscretion(
  lines: LineMap,
  start: number,
  delimiter: "**" | "***",
  diagnostics: Diagnostic[],
): Closed {
  const source = lines.source;
  const width = delimiter.length;
  const closer = source.indexOf(delimiter, start + width);
  const end = closer === -1 ? source.length : closer + width;
  if (closer === -1)
    diagnostics.push(parseMessages.unterminatedDiscretion(lines.range(start, start + width), delimiter));
  const multiline = closer === -1 || source.slice(start, end).includes("\n");
  const node = discretionNode(lines, start, end, width, multiline, closer !== -1);
  const text = source.slice(start, end);
  return { token: { type: "discretion", text, value: text, loc: node.loc, node }, end };
}
