/**
 * prosec's compiler API. Every function returns diagnostics instead of throwing on user input.
 */
export type * from "./ast.js";
export type { Diagnostic, FileDiagnostics, Severity } from "./diagnostics/diagnostic.js";
export { hasErrors } from "./diagnostics/diagnostic.js";
export { formatDiagnostic, toJson, type FormatOptions, type JsonDiagnostic } from "./diagnostics/format.js";
export { parse, type ParseOptions, type ParseResult } from "./phases/1-parse/index.js";
export { checkSource, type CheckOptions, type CheckResult } from "./pipeline.js";
export { compilerVersion } from "./version.js";
export { analyze, type Analysis, type AnalyzeOptions, type ImportedProgram } from "./phases/2-analyze/index.js";
export { compile, type CompileOptions, type CompileResult, type ImportResolution } from "./compile.js";
export { build, type BuildOptions, type BuildResult, type BuiltProgram, type BuildStatus } from "./project/build.js";
