/**
 * Fields read from one binding (`r.title`, `r.items`, `{r.owner}`): when the binding holds text that
 * needs the model to read, the runtime asks for all of them in one question instead of one per field.
 * A group is the sorted field names read anywhere from the same symbol; a name read alone has none.
 */
import type * as ast from "../../ast.js";
import type { Analysis, SymbolInfo } from "../2-analyze/index.js";
import { walk } from "../../walk.js";

export function fieldGroups(analysis: Analysis): ReadonlyMap<ast.MemberExpression, readonly string[]> {
  const bySymbol = new Map<SymbolInfo, { members: ast.MemberExpression[]; fields: Set<string> }>();
  walk(analysis.program, (node) => {
    if (node.kind !== "Member" || node.object.kind !== "Identifier") return;
    const symbol = analysis.references.get(node.object);
    if (symbol === undefined) return;
    const entry = bySymbol.get(symbol) ?? { members: [], fields: new Set<string>() };
    entry.members.push(node);
    entry.fields.add(node.property.name);
    bySymbol.set(symbol, entry);
  });
  const groups = new Map<ast.MemberExpression, readonly string[]>();
  for (const { members, fields } of bySymbol.values()) {
    if (fields.size < 2) continue;
    const group = [...fields].sort();
    for (const member of members) groups.set(member, group);
  }
  return groups;
}
