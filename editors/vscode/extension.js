// The OpenProse extension: the language (grammar and editing rules, from package.json) and a
// client for the prosec language server, started as `prosec lsp --stdio`.
"use strict";
const { window, workspace } = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
const { serverCommand } = require("./server-command.js");

let client;

async function start() {
  const settings = workspace.getConfiguration("prose");
  const folders = (workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  const command = serverCommand(settings.get("server.path"), folders);
  // A `.cmd` shim (Windows) runs only through a shell.
  const serverOptions = {
    command,
    args: ["lsp"],
    transport: TransportKind.stdio,
    options: { shell: command.endsWith(".cmd") },
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "prose" },
      { scheme: "untitled", language: "prose" },
    ],
    initializationOptions: { strict: settings.get("strict") === true },
    // Programs `use` each other (registry ones through prose.lock): a change on disk can change the
    // diagnostics of an open one.
    synchronize: { fileEvents: workspace.createFileSystemWatcher("**/{*.prose,prose.lock}") },
  };
  client = new LanguageClient("prose", "OpenProse", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    client = undefined;
    const reason = error instanceof Error ? error.message : String(error);
    void window.showErrorMessage(
      `OpenProse: could not start the language server \`${command} lsp --stdio\` (${reason}). Install prosec in the workspace (npm install prosec) or set prose.server.path.`,
    );
  }
}

async function restart() {
  const running = client;
  client = undefined;
  await running?.stop();
  await start();
}

function activate(context) {
  context.subscriptions.push(
    workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("prose.server.path") || event.affectsConfiguration("prose.strict")) void restart();
    }),
  );
  return start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
