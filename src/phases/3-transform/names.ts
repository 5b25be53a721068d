/**
 * TypeScript names for `.prose` names. `.prose` names may hold hyphens and may be anything that is
 * not a keyword of their own language, so each gets a valid, readable TypeScript name that
 * collides with no other: `security-reviewer` → `securityReviewer`.
 *
 * `.prose` names never contain `$`, so every name this file makes up to avoid a collision holds a
 * `$` (`class$`, `a$b`, `review$block`), and the temporaries of generated code start with `$`.
 */

/**
 * What a generated module may import from the runtime. No `.prose` name takes one of them: a binding
 * named `bindingsInOrder` shadowed the helper the run body calls before the binding is made.
 */
export const runtimeImports = [
  "defineProgram",
  "startRun",
  "text",
  "add",
  "subtract",
  "multiply",
  "divide",
  "equals",
  "compare",
  "isTruthy",
  "bindingsInOrder",
  "Value",
  "AgentDefinition",
  "RunOptions",
  "Runtime",
] as const;
export type RuntimeImport = (typeof runtimeImports)[number];

/** Words a generated module cannot use for a binding: reserved words, globals it uses, its own names. */
const reserved: ReadonlySet<string> = new Set([
  // ECMAScript reserved words, strict-mode and module restrictions
  ...["await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else"],
  ...["enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new"],
  ...["null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with"],
  ...[
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "arguments",
    "eval",
  ],
  // TypeScript words that are awkward as value names
  ...[
    "any",
    "as",
    "async",
    "boolean",
    "declare",
    "never",
    "number",
    "object",
    "string",
    "symbol",
    "type",
    "unknown",
    "of",
  ],
  // globals generated code relies on
  ...[
    "undefined",
    "NaN",
    "Infinity",
    "Number",
    "String",
    "Error",
    "Promise",
    "Object",
    "Array",
    "JSON",
    "Math",
    "Symbol",
  ],
  // names of the generated module itself and of what it imports from the runtime
  ...["rt", "inputs", "options", "program", "run", "Inputs", "Outputs", "_item", "_index"],
  ...runtimeImports,
]);

export type Namespace = "value" | "agent" | "block";

/** Allocates one TypeScript name per (namespace, `.prose` name), deterministically. */
export class NameTable {
  private readonly taken = new Set<string>();
  private readonly assigned = new Map<string, string>();

  /**
   * Every name must be declared before any is looked up, so that the result does not depend on
   * the order names are met in: plain names first (they keep their spelling), then hyphenated
   * ones, each group sorted.
   */
  constructor(names: Iterable<readonly [Namespace, string]>) {
    const order: Namespace[] = ["value", "agent", "block"];
    const unique = [
      ...new Map([...names].map(([space, name]) => [`${space}:${name}`, [space, name] as const])).values(),
    ];
    unique.sort(([spaceA, a], [spaceB, b]) => {
      const byHyphen = Number(a.includes("-")) - Number(b.includes("-"));
      if (byHyphen !== 0) return byHyphen;
      const bySpace = order.indexOf(spaceA) - order.indexOf(spaceB);
      if (bySpace !== 0) return bySpace;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    for (const [space, name] of unique) this.assign(space, name);
  }

  /** The TypeScript name of a declared `.prose` name. */
  get(space: Namespace, name: string): string {
    const found = this.assigned.get(`${space}:${name}`);
    if (found === undefined)
      throw new Error(`internal: the name \`${name}\` (${space}) was never declared to the name table`);
    return found;
  }

  private assign(space: Namespace, name: string): void {
    const candidates = [camelCase(name), safe(name), `${safe(name)}$`, `${safe(name)}$${space}`];
    const chosen =
      candidates.find((candidate) => !this.taken.has(candidate) && !reserved.has(candidate)) ??
      uniqueVariant(`${safe(name)}$`, this.taken);
    this.taken.add(chosen);
    this.assigned.set(`${space}:${name}`, chosen);
  }
}

/** `market-trends` → `marketTrends`; a name starting with a digit or holding other characters is made safe. */
function camelCase(name: string): string {
  return safe(name.replace(/-([A-Za-z0-9])/g, (_, letter: string) => letter.toUpperCase()));
}

/** Hyphens (and anything else TypeScript rejects) become `$`, which no `.prose` name holds. */
function safe(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, () => "$");
  return /^[0-9]/.test(cleaned) ? `$${cleaned}` : cleaned;
}

function uniqueVariant(base: string, taken: ReadonlySet<string>): string {
  for (let suffix = 2; ; suffix++) if (!taken.has(`${base}${suffix}`)) return `${base}${suffix}`;
}
