import type { Identifier, IndexExpression, MemberExpression, Placeholder, StringPart } from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { parseMessages } from "../../diagnostics/messages.js";
import type { LineMap } from "./line-map.js";

export interface ScannedText {
  readonly value: string;
  readonly parts: StringPart[];
  readonly diagnostics: Diagnostic[];
}

const escapes: Readonly<Record<string, string>> = { "\\": "\\", '"': '"', n: "\n", t: "\t", "{": "{", "}": "}" };

const NAME = String.raw`[\p{L}_][\p{L}\p{N}_]*(?:-[\p{L}\p{N}_]+)*`;
const placeholderPattern = new RegExp(String.raw`\{(${NAME})((?:\.${NAME}|\[\d+\])*)\}`, "uy");
const accessPattern = new RegExp(String.raw`\.(${NAME})|\[(\d+)\]`, "gu");

/**
 * Splits the text between `start` and `end` into literal text and `{placeholder}` candidates.
 * With `escapes` (single-line strings) backslash escapes are processed; triple-quoted strings and
 * discretion text are raw.
 */
export function scanText(lines: LineMap, start: number, end: number, processEscapes: boolean): ScannedText {
  const source = lines.source;
  const parts: StringPart[] = [];
  const diagnostics: Diagnostic[] = [];
  let value = "";
  let text = "";
  let textStart = start;

  const flushText = (at: number) => {
    if (text !== "") parts.push({ kind: "TextPart", value: text, loc: lines.range(textStart, at) });
    text = "";
  };

  // Searches stay inside the string: searching the whole source would make many strings quadratic.
  const body = source.slice(start, end);
  let index = start;
  while (index < end) {
    const char = source[index]!;
    if (processEscapes && char === "\\") {
      const next = source[index + 1] ?? "";
      const cooked = escapes[next];
      if (cooked === undefined) {
        diagnostics.push(parseMessages.unknownEscape(lines.range(index, Math.min(index + 2, end)), next));
        text += next;
        value += next;
      } else {
        text += cooked;
        value += cooked;
      }
      index += 2;
      continue;
    }
    if (char === "{") {
      placeholderPattern.lastIndex = index;
      const match = placeholderPattern.exec(source);
      if (match && index + match[0].length <= end) {
        flushText(index);
        parts.push(placeholder(lines, index, match[0], match[1]!, match[2]!));
        value += match[0];
        index += match[0].length;
        textStart = index;
        continue;
      }
    }
    // Plain text up to the next character that may start an escape or a placeholder, in one piece.
    // A CRLF line end inside the text (a triple-quoted string, a discretion over lines) is a line end:
    // the same prompt whichever line ends the file was saved with.
    const next = start + nextSpecial(body, index + 1 - start, processEscapes);
    const plain = source.slice(index, next).replaceAll("\r\n", "\n");
    text += plain;
    value += plain;
    index = next;
  }
  flushText(end);
  return { value, parts, diagnostics };
}

function nextSpecial(body: string, from: number, escapes: boolean): number {
  const brace = body.indexOf("{", from);
  const backslash = escapes ? body.indexOf("\\", from) : -1;
  let next = body.length;
  if (brace !== -1 && brace < next) next = brace;
  if (backslash !== -1 && backslash < next) next = backslash;
  return next;
}

function placeholder(lines: LineMap, offset: number, text: string, root: string, accessors: string): Placeholder {
  const rootStart = offset + 1;
  let path: Identifier | MemberExpression | IndexExpression = {
    kind: "Identifier",
    name: root,
    loc: lines.range(rootStart, rootStart + root.length),
  };
  let cursor = rootStart + root.length;
  for (const access of accessors.matchAll(accessPattern)) {
    const accessEnd = cursor + access[0].length;
    const [, property, index] = access;
    if (property !== undefined) {
      path = {
        kind: "Member",
        object: path,
        property: { kind: "Identifier", name: property, loc: lines.range(cursor + 1, accessEnd) },
        loc: lines.range(rootStart, accessEnd),
      };
    } else {
      path = {
        kind: "Index",
        object: path,
        index: { kind: "Number", value: Number(index), raw: index!, loc: lines.range(cursor + 1, accessEnd - 1) },
        loc: lines.range(rootStart, accessEnd),
      };
    }
    cursor = accessEnd;
  }
  return { kind: "Placeholder", path, text, loc: lines.range(offset, offset + text.length) };
}
