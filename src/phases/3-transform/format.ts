import type { Options } from "prettier";

/** Fixed prettier options: output never depends on a prettier config found on the machine. */
export const PRETTIER_OPTIONS: Readonly<Options> = {
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

/** A generated module before formatting. */
export interface UnformattedModule {
  readonly code: string;
  /**
   * A large program's module in pieces, formatted one at a time (prettier's time and memory grow
   * faster than the text): the module with the statement `marker;` standing for its run body, and
   * the run body's statements, grouped. Formatted, they read exactly as `code` formatted whole.
   */
  readonly split?: () => { readonly outline: string; readonly marker: string; readonly pieces: readonly string[] };
}

/** Where a piece of the run body stands while it is formatted: as deep as in the module. */
const wrapperOpen = ["async function run() {", "  return startRun(async (rt) => {"];
const wrapperClose = ["  });", "}", ""];

/**
 * Formats generated TypeScript. Lowering writes only what it means to keep (it reads the analysis'
 * facts), so nothing is parsed here but by prettier. Prettier is loaded on first use: a no-op build
 * never pays for it.
 */
export async function format(
  module: string | UnformattedModule,
  onPiece?: (piece: number, pieces: number) => void,
): Promise<string> {
  const prettier = await import("prettier");
  const { code, split: splitModule } = typeof module === "string" ? { code: module, split: undefined } : module;
  if (splitModule === undefined) return prettier.format(code, PRETTIER_OPTIONS);
  const split = splitModule();
  const outline = await prettier.format(split.outline, PRETTIER_OPTIONS);
  const body: string[] = [];
  for (const [index, piece] of split.pieces.entries()) {
    onPiece?.(index + 1, split.pieces.length);
    const lines = (await prettier.format([...wrapperOpen, piece, ...wrapperClose].join("\n"), PRETTIER_OPTIONS)).split(
      "\n",
    );
    const wrapped =
      lines.slice(0, wrapperOpen.length).join("\n") === wrapperOpen.join("\n") &&
      lines.slice(-wrapperClose.length).join("\n") === wrapperClose.join("\n");
    if (!wrapped) throw new Error("prosec: a piece of a module did not format in place.");
    body.push(...lines.slice(wrapperOpen.length, -wrapperClose.length));
  }
  const markerLine = `    ${split.marker};`;
  const outlineLines = outline.split("\n");
  const at = outlineLines.indexOf(markerLine);
  if (at < 0 || outlineLines.lastIndexOf(markerLine) !== at)
    throw new Error("prosec: the run body's place in a module was not found once.");
  return [...outlineLines.slice(0, at), ...body, ...outlineLines.slice(at + 1)].join("\n");
}
