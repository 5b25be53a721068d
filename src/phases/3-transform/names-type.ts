/**
 * Whether generated code names a type: the module imports `Value` only then (an unused import fails
 * `noUnusedLocals` and linters). Lowering writes the type in many places, so this reads what it
 * wrote, skipping what is not code: string literals, a template's text (a prompt may say "Value")
 * and comments (an input's question).
 */
export function namesType(code: string, name: string): boolean {
  if (!code.includes(name)) return false;
  /** For each template whose `${` is open, the brace depth at which it closes. */
  const templates: number[] = [];
  let depth = 0;
  let inTemplate = false;
  for (let at = 0; at < code.length; at++) {
    const char = code[at]!;
    if (inTemplate) {
      if (char === "\\") at++;
      else if (char === "`") inTemplate = false;
      else if (char === "$" && code[at + 1] === "{") {
        templates.push(depth);
        depth++;
        at++;
        inTemplate = false;
      }
      continue;
    }
    if (char === "/" && code[at + 1] === "/") at = end(code, "\n", at + 2);
    else if (char === "/" && code[at + 1] === "*") at = end(code, "*/", at + 2) + 1;
    else if (char === '"' || char === "'") at = stringEnd(code, char, at + 1);
    else if (char === "`") inTemplate = true;
    else if (char === "{") depth++;
    else if (char === "}") {
      depth--;
      if (templates.at(-1) === depth) {
        templates.pop();
        inTemplate = true;
      }
    } else if (code.startsWith(name, at) && !isNamePart(code[at - 1]) && !isNamePart(code[at + name.length]))
      return true;
    else if (isNamePart(char)) while (isNamePart(code[at + 1])) at++;
  }
  return false;
}

function isNamePart(char: string | undefined): boolean {
  return char !== undefined && /[\w$]/.test(char);
}

/** Where `closing` starts after `from` (the end of the code if it never does). */
function end(code: string, closing: string, from: number): number {
  const at = code.indexOf(closing, from);
  return at < 0 ? code.length : at;
}

/** The closing quote of a string literal whose text starts at `from`. */
function stringEnd(code: string, quote: string, from: number): number {
  for (let at = from; at < code.length; at++) {
    if (code[at] === "\\") at++;
    else if (code[at] === quote) return at;
  }
  return code.length;
}
