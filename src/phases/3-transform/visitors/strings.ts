/** Strings and discretion texts: template literals whose bound placeholders interpolate through `text()`. */
import type * as ast from "../../../ast.js";
import { stringLiteral, templateChunk } from "../literals.js";
import { composed, inert, type Lowered } from "../lowered.js";
import type { Lowering } from "../lowering.js";
import type { ExpressionLowering } from "../settings.js";
import type { LowerState } from "../state.js";

/** Template literal (or plain string literal) for string parts; bound placeholders interpolate via `text()`. */
export function templateOf(parts: readonly ast.StringPart[], state: LowerState, lowering: Lowering): Lowered {
  const chunks: (string | ast.Placeholder)[] = [];
  for (const part of parts) {
    const interpolated = part.kind === "Placeholder" && lowering.analysis.interpolations.has(part);
    const literal = part.kind === "TextPart" ? part.value : interpolated ? undefined : part.text;
    if (literal === undefined) chunks.push(part as ast.Placeholder);
    else if (typeof chunks.at(-1) === "string") chunks[chunks.length - 1] += literal;
    else chunks.push(literal);
  }
  if (chunks.every((chunk) => typeof chunk === "string")) {
    const value = chunks.join("");
    return inert(value.includes("\n") ? `\`${templateChunk(value)}\`` : stringLiteral(value));
  }
  const values: Lowered[] = [];
  const body = chunks
    .map((chunk) => {
      if (typeof chunk === "string") return templateChunk(chunk);
      const value = lowering.value(chunk.path, state);
      values.push(value);
      // A name only a block binds, read before any call finished (P019), reads `null` and shows it:
      // the prompt says `null` where any other `null` renders as nothing.
      const shown = isBlockBindingRead(chunk, lowering) ? `${value.code} ?? "null"` : value.code;
      return `\${${lowering.helper("text")}(${shown})}`;
    })
    .join("");
  return composed(`\`${body}\``, values);
}

/** `{name}` where the name is a block's binding read by its caller (warning P019). */
function isBlockBindingRead(placeholder: ast.Placeholder, lowering: Lowering): boolean {
  return placeholder.path.kind === "Identifier" && lowering.analysis.blockBindingReads.has(placeholder.path);
}

/** A `string`-typed expression for a string literal; bound placeholders interpolate. */
export function string(literal: ast.StringLiteral, state: LowerState, lowering: Lowering): Lowered {
  return templateOf(literal.parts, state, lowering);
}

/** A `string`-typed expression for any expression. */
export function text(expression: ast.Expression, state: LowerState, lowering: Lowering): string {
  return expression.kind === "String"
    ? string(expression, state, lowering).code
    : `${lowering.helper("text")}(${lowering.value(expression, state).code})`;
}

/** What property lowering (`settings.ts`) needs, writing what it needs first to `state.out`. */
export function propertyLowering(state: LowerState, lowering: Lowering): ExpressionLowering {
  return {
    value: (expression) => lowering.value(expression, state).code,
    string: (literal) => string(literal, state, lowering).code,
    text: (expression) => text(expression, state, lowering),
    helper: (name) => lowering.helper(name),
  };
}
