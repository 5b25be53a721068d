/**
 * Every code prosec reports, with its severity and what it means: the one table docs/diagnostics.md's list
 * is generated from (`npm run codes`). `messages.ts` can only report a code listed here, and only
 * with the severity listed here.
 *
 * E and W codes are compiler.md's; P codes are prosec's own.
 */
export type Severity = "error" | "warning";

export interface CodeInfo {
  readonly severity: Severity;
  /** What it reports, in a few words (a README table cell: Markdown). */
  readonly meaning: string;
}

export const diagnosticCodes = {
  E001: { severity: "error", meaning: 'unterminated string (`"`, `"""`) or `**` / `***` condition' },
  E002: { severity: "error", meaning: 'unknown escape sequence in a `"..."` string' },
  E003: { severity: "error", meaning: "session without a prompt and without an agent" },
  E004: { severity: "error", meaning: "unexpected token (the message says what was expected, in words)" },
  E005: {
    severity: "error",
    meaning: "indentation: missing block after `:`, unexpected indent, tab, dedent to an unknown width",
  },
  E006: { severity: "error", meaning: "agent defined twice" },
  E007: { severity: "error", meaning: "undefined agent (with did-you-mean)" },
  E008: { severity: "error", meaning: "model other than `sonnet`, `opus`, `haiku` or a quoted model id" },
  E009: { severity: "error", meaning: "property set twice" },
  E010: { severity: "error", meaning: "program imported twice (same path or same name)" },
  E011: { severity: "error", meaning: "empty `use` path" },
  E012: { severity: "error", meaning: "`use` path that is neither a relative path nor a registry handle" },
  E013: { severity: "error", meaning: "`skills:` not a list" },
  E014: { severity: "error", meaning: "a skill name not a string" },
  E015: { severity: "error", meaning: "`permissions:` not a block" },
  E016: { severity: "error", meaning: "a permission pattern neither a string nor a name" },
  E017: { severity: "error", meaning: "`resume:` of an agent without `persist:`" },
  E019: { severity: "error", meaning: "name declared twice in the same scope" },
  E021: { severity: "error", meaning: "input declared twice" },
  E024: { severity: "error", meaning: "output declared twice in the same scope (once per branch is fine)" },
  E025: { severity: "error", meaning: "program call: unknown program" },
  E026: { severity: "error", meaning: "program call: missing input" },
  E027: { severity: "error", meaning: "program call: unknown input" },
  E028: { severity: "error", meaning: "program call: unknown output" },
  W001: { severity: "warning", meaning: "empty session prompt" },
  W002: { severity: "warning", meaning: "prompt of whitespace only" },
  W003: { severity: "warning", meaning: "prompt over 10,000 characters" },
  W004: { severity: "warning", meaning: "empty `prompt:`" },
  W005: { severity: "warning", meaning: "unknown property (passed to the model as a note)" },
  W006: { severity: "warning", meaning: 'legacy `import "skill" from "source"`' },
  W007: { severity: "warning", meaning: "skill not imported" },
  W008: { severity: "warning", meaning: "unknown permission (grants nothing)" },
  W009: { severity: "warning", meaning: "unknown permission value (treated as `deny`)" },
  W010: { severity: "warning", meaning: "empty `skills:`" },
  P000: { severity: "error", meaning: "internal compiler error (never expected; the fuzz test guards it)" },
  P001: { severity: "error", meaning: "undefined name (with did-you-mean)" },
  P002: { severity: "warning", meaning: "`{placeholder}` that names no binding: stays literal text" },
  P003: { severity: "error", meaning: "unknown property value (`backoff:`, `persist:`, join strategy, `on-fail:`)" },
  P004: { severity: "warning", meaning: "loop without `(max: N)`" },
  P005: { severity: "error", meaning: '`count:` without the `"any"` join strategy' },
  P006: { severity: "warning", meaning: "block called with the wrong number of arguments" },
  P007: { severity: "warning", meaning: "a binding shadows an outer one" },
  P008: { severity: "error", meaning: "a `use`d registry program or URL is not in prose.lock (`prosec add` it)" },
  P009: { severity: "error", meaning: "undefined block (with did-you-mean)" },
  P010: { severity: "error", meaning: "`const` reassigned" },
  P011: {
    severity: "error",
    meaning: "repeat count, `max:`, `retry:`, `count:`, an input's `timeout:` not a whole number of at least 1",
  },
  P012: { severity: "warning", meaning: "a name is both an agent and a variable" },
  P013: { severity: "warning", meaning: "`try:` without `catch:` or `finally:`" },
  P014: { severity: "error", meaning: "empty `**condition**`" },
  P015: { severity: "error", meaning: "block defined twice" },
  P016: { severity: "warning", meaning: "duplicate `option` label" },
  P017: { severity: "error", meaning: "unknown modifier (`(maximum: 3)`)" },
  P018: { severity: "warning", meaning: "`count:` larger than the number of branches" },
  P019: { severity: "warning", meaning: "reading a name bound inside a block the caller ran" },
  P020: { severity: "error", meaning: "the file is not valid UTF-8 (at the first bad byte)" },
  P021: { severity: "error", meaning: "binary file (a NUL byte): never shown in a code frame" },
  P022: {
    severity: "error",
    meaning: "a statement nests more than 100 levels deep (lists and records: 32), see below",
  },
  P030: { severity: "error", meaning: "a `use`d local program is missing" },
  P031: { severity: "error", meaning: "a `use`d program has errors" },
  P032: { severity: "error", meaning: "a vendored program in prose_modules/ is missing or differs from prose.lock" },
  P033: { severity: "error", meaning: "programs `use` each other in a cycle (the chain is shown)" },
  P034: { severity: "error", meaning: "prose.lock cannot be read" },
  P035: {
    severity: "error",
    meaning: "a misspelt property, a near miss of a known one (`permisions:`): it would silently change what runs",
  },
  P036: { severity: "error", meaning: "`return` inside a `parallel:` branch or a `parallel for` / `pmap` item" },
  P037: {
    severity: "error",
    meaning:
      "`break` inside a `parallel for`, `pmap` or pipeline item, or `break` / `continue` leaving a `parallel:` branch",
  },
  P038: { severity: "error", meaning: "`break` or `continue` outside a loop" },
  P039: { severity: "error", meaning: "`{placeholder}` one edit from a binding in scope: a typo (with did-you-mean)" },
  P040: {
    severity: "warning",
    meaning:
      "code that never runs: after `throw`, `return`, `break`, `continue` or a construct every path of which leaves",
  },
  P041: {
    severity: "warning",
    meaning: "a loop variable or block parameter reassigned: the value holds until the next iteration or call",
  },
  P042: {
    severity: "error",
    meaning:
      "prose.lock is OpenProse's plaintext git-native lockfile (`host/owner/repo sha` lines): not read, never overwritten",
  },
  P043: {
    severity: "error",
    meaning: "a number too large for a JavaScript number (past about 1.8e308): it would run as `Infinity`",
  },
  P045: {
    severity: "error",
    meaning:
      "`returns:` names a type outside its subset (`int`, `Array<T>`, `any`...): the hint gives the one to write",
  },
  P046: { severity: "error", meaning: "`returns:` type `T?`: write `key?: T` in a record, or `T | null`" },
  P047: {
    severity: "error",
    meaning:
      "`returns:` type that does not parse (a token out of place, a bracket not closed), or names a field `__proto__`",
  },
  P048: { severity: "error", meaning: "a record type in `returns:` names a key twice" },
  P049: {
    severity: "error",
    meaning:
      "`returns:` where no session's result is typed (`permissions:`, `context:`, `resume:`, a `filter:` verdict other than `boolean`)",
  },
  P050: { severity: "error", meaning: "a field that a `returns:` type does not declare (with did-you-mean)" },
  P051: {
    severity: "error",
    meaning: "a typed result read as what its type is not: a field of a list, an index of a record",
  },
  P055: { severity: "error", meaning: "`permissions: mcp:` names an MCP server `.mcp.json` does not declare" },
  P056: { severity: "error", meaning: "`permissions: mcp:` entry that is not a quoted `server/tool` glob" },
  P057: { severity: "error", meaning: "`.mcp.json` above the program cannot be read or is not valid" },
  P058: {
    severity: "error",
    meaning: "`skills:` names a skill one edit from an installed one: a typo (with did-you-mean)",
  },
  P059: {
    severity: "error",
    meaning: "`permissions: env:` names the model's credentials, which prosec never gives a tool",
  },
  P061: {
    severity: "error",
    meaning: "a record literal gives a key twice (`{ a: x, a: y }`, `{ x, x }`, `{ token, access.token }`)",
  },
  P063: {
    severity: "error",
    meaning:
      "a field that a record the program writes does not have (a literal, a named `parallel:`), with did-you-mean: it is always `null`",
  },
} as const satisfies Readonly<Record<string, CodeInfo>>;

export type DiagnosticCode = keyof typeof diagnosticCodes;

/** The codes listed with severity `S`. */
export type CodeOf<S extends Severity> = {
  [C in DiagnosticCode]: (typeof diagnosticCodes)[C]["severity"] extends S ? C : never;
}[DiagnosticCode];
