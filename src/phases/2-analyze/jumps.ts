/**
 * What `return`, `break` and `continue` may leave (DIALECT.md, "Statements beyond the grammar"):
 * `return` the block call or the program, `break` the innermost sequential loop, `continue` the
 * innermost loop or item. A `parallel:` branch, a `parallel for` or `pmap` item runs beside
 * others, so nothing inside it can end what encloses it.
 */
import type * as ast from "../../ast.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeMessages as m } from "../../diagnostics/messages.js";

/** A construct a jump could leave, as the analyzer enters it. */
export type JumpScope =
  | { readonly kind: "block" }
  | { readonly kind: "loop" }
  /** One item of a pipeline stage or a `parallel for`: `continue` ends it, `break` cannot leave it. */
  | { readonly kind: "item"; readonly parallel: boolean; readonly what: string }
  | { readonly kind: "branch" };

/** The error for a jump standing inside `scopes` (outermost first), if it cannot go where it says. */
export function checkJump(jump: ast.JumpStatement, scopes: readonly JumpScope[]): Diagnostic | undefined {
  for (let index = scopes.length - 1; index >= 0; index--) {
    const scope = scopes[index]!;
    switch (jump.kind) {
      case "Return":
        if (scope.kind === "block") return undefined;
        if (scope.kind === "branch") return m.returnFromParallel(jump.loc, "a `parallel:` branch");
        if (scope.kind === "item" && scope.parallel) return m.returnFromParallel(jump.loc, scope.what);
        break;
      case "Break":
        if (scope.kind === "loop") return undefined;
        if (scope.kind === "item") return m.breakFromItem(jump.loc, "break", scope.what);
        if (scope.kind === "branch") return m.breakFromItem(jump.loc, "break", "a `parallel:` branch");
        if (scope.kind === "block") return m.jumpOutsideLoop(jump.loc, "break");
        break;
      case "Continue":
        if (scope.kind === "loop" || scope.kind === "item") return undefined;
        if (scope.kind === "branch") return m.breakFromItem(jump.loc, "continue", "a `parallel:` branch");
        if (scope.kind === "block") return m.jumpOutsideLoop(jump.loc, "continue");
        break;
    }
  }
  return jump.kind === "Return" ? undefined : m.jumpOutsideLoop(jump.loc, jump.kind === "Break" ? "break" : "continue");
}
