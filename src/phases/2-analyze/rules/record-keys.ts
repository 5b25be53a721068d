import { analyzeMessages as m } from "../../../diagnostics/messages.js";
import type { SourceRange } from "../../../ast.js";
import type { Rule } from "./rule.js";

/**
 * A record literal that gives a key twice (P061), in any form: `{ a: x, a: y }`, `{ "a": x, a: y }`,
 * the shorthand `{ x, x }` and the path shorthand `{ token, access.token }`. One of the values would
 * be lost (or, were it kept under a made-up key, never be found by the key written), as TypeScript
 * refuses the same literal.
 */
export const recordKeys: Rule = {
  Object: (node, context) => {
    const first = new Map<string, SourceRange>();
    for (const entry of node.entries) {
      const key = entry.key.kind === "Identifier" ? entry.key.name : entry.key.value;
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, entry.key.loc);
      else context.report(m.duplicateRecordKey(entry.key.loc, key, earlier));
    }
  },
};
