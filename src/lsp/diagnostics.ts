/**
 * prosec's diagnostics as LSP diagnostics: the same code, range, severity and message as
 * `prosec check`, its `help:` hint on the message's last line (LSP has no field for it).
 */
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from "vscode-languageserver";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { toRange } from "./positions.js";

export function toLspDiagnostic(diagnostic: Diagnostic): LspDiagnostic {
  return {
    range: toRange(diagnostic.range),
    severity: diagnostic.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: diagnostic.code,
    source: "prosec",
    message: diagnostic.hint === undefined ? diagnostic.message : `${diagnostic.message}\nhelp: ${diagnostic.hint}`,
  };
}
