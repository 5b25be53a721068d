import type { Options } from "prettier";

/** Fixed prettier options: output never depends on a prettier config found on the machine. */
const options: Options = {
  parser: "typescript",
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
};

/** Formats generated TypeScript. Prettier is loaded on first use: a no-op build never pays for it. */
export async function format(code: string): Promise<string> {
  const prettier = await import("prettier");
  return prettier.format(code, options);
}
