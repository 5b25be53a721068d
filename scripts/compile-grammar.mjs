// nearleyc as a function, so the build script and the staleness test compile the grammar the same way.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const nearley = require("nearley");
const compile = require("nearley/lib/compile.js");
const generate = require("nearley/lib/generate.js");
const lint = require("nearley/lib/lint.js");
const bootstrapped = require("nearley/lib/nearley-language-bootstrapped.js");
const { version } = require("nearley/package.json");

const header = "// Generated from grammar/prose.ne by `npm run grammar` (nearley). Do not edit.\n// @ts-nocheck\n";

/** Returns the TypeScript source of the compiled grammar; throws when the grammar has lint problems. */
export function compileGrammar(root) {
  const file = join(root, "grammar/prose.ne");
  const parser = new nearley.Parser(nearley.Grammar.fromCompiled(bootstrapped));
  parser.feed(readFileSync(file, "utf8"));
  parser.feed("\n");
  if (parser.results.length === 0) throw new Error("grammar/prose.ne: incomplete grammar");
  const compiled = compile(parser.results[0], { version, args: [file] });
  const problems = [];
  lint(compiled, { out: { write: (text) => problems.push(text) }, version });
  if (problems.length > 0) throw new Error(`grammar/prose.ne:\n${problems.join("")}`);
  return header + generate(compiled, "grammar");
}
