/**
 * A real LSP client for tests: spawns `prosec lsp --stdio` as an editor does and talks JSON-RPC to
 * it with vscode-languageserver-protocol's node connection.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  StreamMessageReader,
  StreamMessageWriter,
  type PublishDiagnosticsParams,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";

const bin = fileURLToPath(new URL("../../bin/prosec", import.meta.url));

export interface LspSession {
  readonly connection: ProtocolConnection;
  /** `initialize` (with `folder` as the workspace) then `initialized`; the server's capabilities. */
  initialize(folder: string, initializationOptions?: object): Promise<InitializeResult>;
  /** `didOpen` of a file's text (version 1 unless given). */
  open(path: string, text: string, version?: number): Promise<void>;
  /** `didChange` with the whole new text. */
  change(path: string, text: string, version: number): Promise<void>;
  readonly process: ChildProcess;
  /** Resolves with the next diagnostics published for `uri` (with `version`, when given). */
  diagnostics(uri: string, version?: number): Promise<PublishDiagnosticsParams>;
  /** stderr so far, for failure messages. */
  stderr(): string;
  /** Resolves with the exit code once the server process has ended. */
  exited(): Promise<number | null>;
}

export function startLsp(cwd: string): LspSession {
  const child = spawn(process.execPath, [bin, "lsp", "--stdio"], {
    cwd,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published: PublishDiagnosticsParams[] = [];
  const waiting: Array<{
    uri: string;
    version: number | undefined;
    resolve: (params: PublishDiagnosticsParams) => void;
  }> = [];
  connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
    const waiter = waiting.findIndex(
      (entry) => entry.uri === params.uri && (entry.version === undefined || entry.version === params.version),
    );
    if (waiter === -1) published.push(params);
    else waiting.splice(waiter, 1)[0]!.resolve(params);
  });
  connection.listen();
  return {
    connection,
    initialize: async (folder, initializationOptions) => {
      const result = await connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: fileUri(folder),
        workspaceFolders: [{ uri: fileUri(folder), name: "workspace" }],
        capabilities: {},
        initializationOptions,
      });
      await connection.sendNotification(InitializedNotification.type, {});
      return result;
    },
    open: (path, text, version = 1) =>
      connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: fileUri(path), languageId: "prose", version, text },
      }),
    change: (path, text, version) =>
      connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri: fileUri(path), version },
        contentChanges: [{ text }],
      }),
    process: child,
    diagnostics: (uri, version) => {
      const index = published.findIndex(
        (params) => params.uri === uri && (version === undefined || params.version === version),
      );
      if (index !== -1) return Promise.resolve(published.splice(index, 1)[0]!);
      return new Promise((resolve) => waiting.push({ uri, version, resolve }));
    },
    stderr: () => stderr,
    exited: () => exit,
  };
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

/** The LSP position of the `occurrence`-th `needle` in `text`, `delta` characters into it. */
export function positionOf(
  text: string,
  needle: string,
  delta = 0,
  occurrence = 1,
): { line: number; character: number } {
  let offset = -1;
  for (let found = 0; found < occurrence; found++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset === -1) throw new Error(`${needle} occurs fewer than ${occurrence} times`);
  }
  const before = text.slice(0, offset + delta);
  const line = before.split("\n").length - 1;
  return { line, character: before.length - before.lastIndexOf("\n") - 1 };
}
