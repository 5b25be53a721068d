/**
 * What the compiled grammar needs besides AST builders: the token stream it reads and two token
 * tests that literals cannot express.
 */
import type { Token, TokenType } from "./token.js";

const tokenTypes: ReadonlySet<string> = new Set<TokenType>([
  "name",
  "number",
  "string",
  "discretion",
  "type",
  "punctuation",
  "unknown",
  "NEWLINE",
  "INDENT",
  "DEDENT",
  "SKIPPED",
]);

/** Feeds nearley an already scanned token array (nearley's `feed` text argument is ignored). */
export class TokenStream {
  private tokens: readonly Token[] = [];
  private index = 0;

  load(tokens: readonly Token[]): void {
    this.tokens = tokens;
    this.index = 0;
  }

  reset(): void {}

  next(): Token | undefined {
    return this.tokens[this.index++];
  }

  save(): number {
    return this.index;
  }

  formatError(token: Token): string {
    return `unexpected ${token.type}`;
  }

  has(tokenType: string): boolean {
    return tokenTypes.has(tokenType);
  }
}

/** Only used by the grammar to know the token types; every parse creates its own stream. */
export const tokenStream = new TokenStream();

/**
 * Words that a name in expression position may not be: they are literals or operators, or they
 * begin statements, so reading them as values would only make errors vaguer.
 */
export const reservedInExpressions: ReadonlySet<string> = new Set([
  "true",
  "false",
  "null",
  "not",
  "and",
  "or",
  "is",
  "let",
  "const",
  "if",
  "elif",
  "else",
  "try",
  "catch",
  "finally",
  "choice",
  "option",
  "assert",
  "throw",
  "return",
  "break",
  "continue",
  "use",
  "import",
]);

/** A name used as a value. */
export const ref = {
  test: (token: Token) => token.type === "name" && !reservedInExpressions.has(token.text),
};

/** Words that begin statements, so `let = 1` is an error rather than an assignment to `let`. */
export const statementKeywords: ReadonlySet<string> = new Set([
  "let",
  "const",
  "output",
  "input",
  "use",
  "import",
  "agent",
  "block",
  "if",
  "elif",
  "else",
  "choice",
  "option",
  "try",
  "catch",
  "finally",
  "throw",
  "return",
  "break",
  "continue",
  "assert",
  "parallel",
  "loop",
  "repeat",
  "for",
  "do",
  "session",
  "resume",
]);

/** The name an assignment `name = value` binds. */
export const target = {
  test: (token: Token) => token.type === "name" && !statementKeywords.has(token.text),
};

/** A literal or a name in value position: one grammar symbol instead of seven keeps the chart small. */
export const atom = {
  test: (token: Token) =>
    token.type === "string" ||
    token.type === "number" ||
    token.type === "discretion" ||
    ref.test(token) ||
    literalWords.has(token.text),
};

const literalWords: ReadonlySet<string> = new Set(["true", "false", "null"]);

/** `let` or `const`. */
export const declaration = {
  test: (token: Token) => token.type === "name" && (token.text === "let" || token.text === "const"),
};

/** The operators between two operands (`a + b`, `x is y`). */
export const binaryOperators: ReadonlySet<string> = new Set([
  "or",
  "and",
  "==",
  "!=",
  "<",
  "<=",
  ">",
  ">=",
  "is",
  "+",
  "-",
  "*",
  "/",
]);

export const binaryOperator = {
  test: (token: Token) => (token.type === "punctuation" || token.type === "name") && binaryOperators.has(token.text),
};

/**
 * Every text the token tests above look at. The tests read a token's type, its `adjacent` flag and
 * whether its text is one of these words, nothing else: so tokens that agree on those (and on
 * grammar literals) match the same terminals, which lets the parser's lookahead (earley.ts) treat
 * them as one. A new test that reads text must add its words here.
 */
export const textsTested: ReadonlySet<string> = new Set([
  ...reservedInExpressions,
  ...statementKeywords,
  ...literalWords,
  ...binaryOperators,
]);

/** `(` written right after a name, as in a program call `research(topic: x)`. */
export const adjacentParen = {
  test: (token: Token) => token.type === "punctuation" && token.text === "(" && token.adjacent === true,
};
