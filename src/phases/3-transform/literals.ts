/**
 * Every string from a `.prose` file reaches generated code through these functions, so that no
 * source text can ever end a literal or a comment early: the literal always evaluates to exactly
 * the source string (lone surrogates and line separators included).
 */

/** A double-quoted TypeScript string literal whose value is exactly `value`. */
export function stringLiteral(value: string): string {
  let out = '"';
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    const char = value[index]!;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else out += escapeUnit(value, index, code) ?? char;
    if (isPair(value, index)) out += value[++index];
  }
  return `${out}"`;
}

/**
 * The raw text of a template literal chunk whose cooked value is exactly `value`. Newlines stay
 * real newlines so multi-line prompts read as they were written.
 */
export function templateChunk(value: string): string {
  let out = "";
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    const char = value[index]!;
    if (char === "`") out += "\\`";
    else if (char === "\\") out += "\\\\";
    // A `$` before `{`, or at the end where the next chunk may start with `{`, would open `${`.
    else if (char === "$" && (value[index + 1] === "{" || index === value.length - 1)) out += "\\$";
    else if (char === "\n") out += "\n";
    else out += escapeUnit(value, index, code) ?? char;
    if (isPair(value, index)) out += value[++index];
  }
  return out;
}

/** Text for inside a `/* ... *\/` comment: it can never close the comment. */
export function commentText(value: string): string {
  return value.replace(/\*\//g, "*\\/");
}

/** A single-line comment's text: line breaks of any kind are shown escaped instead. */
export function lineCommentText(value: string): string {
  return stringLiteral(value).slice(1, -1);
}

/**
 * Escapes for code units that must not appear raw: control characters (CR would be normalised to
 * LF inside templates), the line and paragraph separators, and lone surrogates (which a UTF-8 file
 * cannot hold). `undefined` keeps the unit as it is.
 */
function escapeUnit(value: string, index: number, code: number): string | undefined {
  if (code === 0x09) return "\\t";
  if (code === 0x0d) return "\\r";
  if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029) return unicodeEscape(code);
  if (code >= 0xd800 && code <= 0xdfff && !isPair(value, index)) return unicodeEscape(code);
  return undefined;
}

function isPair(value: string, index: number): boolean {
  const high = value.charCodeAt(index);
  const low = value.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

function unicodeEscape(code: number): string {
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * A number as written in `.prose` (digits, at most one dot), or its value when written otherwise: a
 * leading zero (`00`, `007`) is a legacy octal literal, an error in strict TypeScript.
 */
export function numberLiteral(raw: string): string {
  return /^(?:0|[1-9]\d*)(?:\.\d+)?$/.test(raw) ? raw : String(Number(raw));
}

const identifierPattern = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** An object literal key for `name`: bare when it is a plain identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  // `__proto__: v` would set the prototype rather than a property: a computed key never does.
  if (name === "__proto__") return `[${stringLiteral(name)}]`;
  return identifierPattern.test(name) ? name : stringLiteral(name);
}

/**
 * An object literal field `name: code`, or the shorthand `{ name }` when `code` is that very name. A
 * quoted key never is: `{ "a b": "a b" }` has a string for both, and `{ "a b" }` is not TypeScript.
 */
export function recordField(name: string, code: string): string {
  const key = propertyKey(name);
  return key === code && identifierPattern.test(key) ? code : `${key}: ${code}`;
}

/** A TypeScript literal for JSON data (numbers, strings, booleans, null, arrays, plain objects). */
export function dataLiteral(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return stringLiteral(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`internal: ${value} has no literal`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(dataLiteral).join(", ")}]`;
  if (typeof value === "object")
    return `{ ${Object.entries(value as Record<string, unknown>)
      .map(([key, entry]) => `${propertyKey(key)}: ${dataLiteral(entry)}`)
      .join(", ")} }`;
  throw new Error(`internal: a ${typeof value} has no literal`);
}
