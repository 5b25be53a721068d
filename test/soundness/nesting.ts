/** Programs nested `levels` deep, one construct at a time (tests of the nesting limit, P022). */
export const nestingKinds = [
  "do",
  "if",
  "elif",
  "try",
  "parallel",
  "loop",
  "for",
  "block-if",
  "plus",
  "not",
  "member",
  "list",
  "record",
  "pipeline",
] as const;

export function nested(kind: (typeof nestingKinds)[number], levels: number): string {
  const indent = (depth: number) => "  ".repeat(depth);
  const opening = (header: string) => Array.from({ length: levels }, (_, depth) => `${indent(depth)}${header}`);
  const leaf = `${indent(levels)}session "leaf"`;
  switch (kind) {
    case "do":
      return [...opening("do:"), leaf].join("\n");
    case "if":
      return [...opening("if **go on**:"), leaf].join("\n");
    case "elif":
      return [
        "let x = 1",
        "if x == 0:",
        '  session "zero"',
        ...Array.from({ length: levels }, (_, n) => `elif x == ${n + 1}:\n  session "n${n}"`),
        "else:",
        '  session "other"',
      ].join("\n");
    case "try": {
      const lines = opening("try:");
      lines.push(leaf);
      for (let depth = levels - 1; depth >= 0; depth--)
        lines.push(`${indent(depth)}catch as e${depth}:`, `${indent(depth + 1)}session "caught {e${depth}}"`);
      return lines.join("\n");
    }
    case "parallel":
      return [...opening("parallel:"), leaf].join("\n");
    case "loop":
      return [...opening("loop until **done** (max: 1):"), leaf].join("\n");
    case "for":
      return [...Array.from({ length: levels }, (_, depth) => `${indent(depth)}for x${depth} in ["a"]:`), leaf].join(
        "\n",
      );
    case "block-if":
      return [
        "block b(n):",
        ...Array.from({ length: levels }, (_, depth) => `${indent(depth + 1)}if n > ${depth}:`),
        `${indent(levels + 1)}output n`,
        "",
        "output o = do b(1)",
      ].join("\n");
    case "plus":
      return `let a = 1\noutput o = ${Array.from({ length: levels }, () => "a").join(" + ")}`;
    case "not":
      return `output o = ${"not ".repeat(levels)}true`;
    case "member":
      return `let a = {b: 1}\noutput o = a${".b".repeat(levels)}`;
    case "list":
      return `output o = ${"[".repeat(levels)}1${"]".repeat(levels)}`;
    case "record":
      return `output o = ${"{k: ".repeat(levels)}1${"}".repeat(levels)}`;
    case "pipeline":
      return [
        'let xs = ["a"]',
        "let ys = xs | map:",
        "  item",
        ...Array.from({ length: levels }, () => "| pmap:\n  item"),
        "output o = ys",
      ].join("\n");
  }
}
