// Which `prosec` the extension starts as the language server. Kept apart from extension.js (no
// `vscode` import) so that it can be tested without VS Code.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");

/**
 * The setting when it is set; else the first workspace folder's `node_modules/.bin/prosec` (the
 * version the project pins); else `prosec`, found on the PATH.
 */
function serverCommand(configured, folders, platform = process.platform, exists = existsSync) {
  if (configured && configured.trim() !== "") return configured.trim();
  const executable = platform === "win32" ? "prosec.cmd" : "prosec";
  for (const folder of folders) {
    const local = join(folder, "node_modules", ".bin", executable);
    if (exists(local)) return local;
  }
  return executable;
}

module.exports = { serverCommand };
