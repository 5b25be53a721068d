import type { Discretion, RecoveredStatement, SourceRange, StringLiteral, TypeAnnotation } from "../../ast.js";

/** SKIPPED stands for a statement that error recovery took out of the token stream (parser.ts). */
export type TokenType =
  | "name"
  | "number"
  | "string"
  | "discretion"
  | "type"
  | "punctuation"
  | "unknown"
  | "NEWLINE"
  | "INDENT"
  | "DEDENT"
  | "SKIPPED";

/**
 * A token as the nearley grammar sees it. nearley matches grammar literals (`"session"`, `":"`)
 * against `text`, and `%name`-style symbols against `type`; so keywords are contextual: `session`
 * is a `name` token that the grammar may read as a keyword or as a name.
 */
export interface Token {
  readonly type: TokenType;
  readonly text: string;
  readonly value: string;
  readonly loc: SourceRange;
  /** A `(` written directly after a name, with no space: a call. */
  readonly adjacent?: boolean;
  /** The string or discretion node this token stands for, already split into parts; a `returns:` type. */
  readonly node?: StringLiteral | Discretion | TypeAnnotation;
  /** For a SKIPPED token: the statement it stands for. */
  readonly skipped?: RecoveredStatement;
}

const layoutTexts: Record<"NEWLINE" | "INDENT" | "DEDENT", string> = {
  NEWLINE: "\u0000newline",
  INDENT: "\u0000indent",
  DEDENT: "\u0000dedent",
};

/** NEWLINE / INDENT / DEDENT; their text can never equal a grammar literal. */
export function layoutToken(type: "NEWLINE" | "INDENT" | "DEDENT", loc: SourceRange): Token {
  return { type, text: layoutTexts[type], value: "", loc };
}
