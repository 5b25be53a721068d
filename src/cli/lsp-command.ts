import type { Argv } from "yargs";

export interface LspArguments {
  readonly stdio: boolean;
}

/** `prosec lsp`: the language server. Loaded only when it runs, so other commands start as fast as before. */
export function lspCommand(yargs: Argv): Argv {
  return yargs.command<LspArguments>(
    "lsp",
    "Start the language server for editors (LSP over stdin and stdout)",
    (command) =>
      command
        .option("stdio", {
          type: "boolean",
          default: true,
          describe: "talk over stdin and stdout (the only transport; editors pass it)",
        })
        // vscode-languageclient may pass the editor's process id; the server exits when that process is gone.
        .option("clientProcessId", { type: "number", hidden: true }),
    async () => {
      const { startLanguageServer } = await import("../lsp/server.js");
      startLanguageServer(process.stdin, process.stdout);
    },
  );
}
