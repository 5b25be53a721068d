import { isOneOf, MODEL_CREDENTIALS, permissionKinds, permissionWords } from "../../../../runtime/vocabulary.js";
import type * as ast from "../../../ast.js";
import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import { promptedGlob } from "../mcp-entries.js";
import { closest } from "../suggest.js";
import { describe } from "./describe.js";
import type { RuleContext } from "./rule.js";

/**
 * `permissions:` is a block of known kinds, each set once, to a mode or (all but `bash`) a list of
 * patterns (E009, E015, E016, W008, W009); `env:` never names the model's credentials (P059).
 */
export function checkPermissions(value: ast.Expression | ast.PropertyBlock, context: RuleContext): void {
  if (value.kind !== "PropertyBlock") {
    context.report(m.permissionsNotBlock(value.loc));
    return;
  }
  const seen = new Map<string, ast.Property>();
  for (const rule of value.properties) {
    const name = rule.key.name;
    const first = seen.get(name);
    if (first) context.report(m.duplicateProperty(rule.key.loc, name, first.key.loc));
    seen.set(name, rule);
    if (!isOneOf(permissionKinds, name)) {
      context.report(m.unknownPermission(rule.key.loc, name, closest(name, permissionKinds)));
      continue;
    }
    const ruleValue = rule.value;
    if (ruleValue.kind === "TypeAnnotation") continue;
    if (ruleValue.kind === "Array" && name === "mcp") {
      checkMcpGlobs(ruleValue.elements, context);
      continue;
    }
    if (ruleValue.kind === "Array" && name !== "bash") {
      for (const pattern of ruleValue.elements) {
        if (pattern.kind !== "String" && pattern.kind !== "Identifier")
          context.report(m.permissionPatternNotString(pattern.loc));
        else if (name === "env" && pattern.kind === "String" && MODEL_CREDENTIALS.includes(pattern.value))
          context.report(m.envNamesModelKey(pattern.loc, pattern.value));
      }
      continue;
    }
    const word =
      ruleValue.kind === "Identifier" ? ruleValue.name : ruleValue.kind === "String" ? ruleValue.value : undefined;
    const allowed = word !== undefined && permissionWords(name).includes(word);
    if (!allowed) context.report(m.unknownPermissionValue(ruleValue.loc, name, word ?? describe(ruleValue)));
  }
}

/**
 * `mcp:` globs are quoted `server/tool` text (or `prompt: "server/tool"`, a glob whose calls a person approves), and the server (when not itself a glob) is one the
 * `.mcp.json` nearest the program declares (P055, P056, P057). Check never starts a server: which
 * tools a glob matches is known when the server first starts (a warning then, if none).
 */
function checkMcpGlobs(globs: readonly ast.Expression[], context: RuleContext): void {
  const declared = context.mcpServers;
  let reported = false;
  for (const entry of globs) {
    const glob = promptedGlob(entry) ?? entry;
    if (glob.kind !== "String" || !glob.parts.every((part) => part.kind === "TextPart")) {
      context.report(m.mcpGlobNotString(glob.loc));
      continue;
    }
    if (declared === undefined) continue;
    if (declared.problem !== undefined) {
      if (!reported) context.report(m.badMcpConfig(glob.loc, declared.problem));
      reported = true;
      continue;
    }
    const server = glob.value.split("/")[0] ?? "";
    if (server.includes("*") || declared.names.includes(server)) continue;
    context.report(
      m.unknownMcpServer(glob.loc, server, declared.file, declared.names, closest(server, declared.names)),
    );
  }
}
