// ESLint for prosec's own source: typescript-eslint's recommended rules. Formatting is prettier's
// (.prettierrc); `npm run lint` runs both.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";

/** What Node gives scripts and benchmarks (.mjs) without an import. */
const nodeGlobals = Object.fromEntries(
  [
    "AbortController",
    "AbortSignal",
    "Buffer",
    "URL",
    "clearTimeout",
    "console",
    "fetch",
    "globalThis",
    "performance",
    "process",
    "queueMicrotask",
    "setImmediate",
    "setInterval",
    "clearInterval",
    "setTimeout",
    "structuredClone",
  ].map((name) => [name, "readonly"]),
);

export default defineConfig(
  globalIgnores([
    "dist",
    ".dist/",
    "node_modules/",
    "bench/results/",
    "src/phases/1-parse/grammar.ts",
    "snapshots/",
    "**/*.prose.ts",
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: nodeGlobals } },
  // The VS Code extension is CommonJS, as VS Code loads it.
  {
    files: ["editors/vscode/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { ...nodeGlobals, require: "readonly", module: "writable", __dirname: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    rules: {
      // `_name` marks a parameter an implementation of an interface does not need.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Walking a chain that starts at `this` (a scope and its parents) names `this` as the first link.
      "@typescript-eslint/no-this-alias": "off",
      // Control characters are matched on purpose: commands, lock files and terminal output are checked for them.
      "no-control-regex": "off",
    },
  },
);
