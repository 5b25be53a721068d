/**
 * `prosec lsp`: the language server, over stdio. Documents are synchronised whole (a check of a
 * 1,000-line program takes a few milliseconds, see bench/lsp.bench.mjs); diagnostics are published
 * once typing pauses, and every request reads the document as it is at that moment.
 */
import {
  createConnection,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type TextDocumentPositionParams,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { compilerVersion } from "../version.js";
import { completion } from "./completion.js";
import { toLspDiagnostic } from "./diagnostics.js";
import { documentSymbols } from "./document-symbols.js";
import { hover } from "./hover.js";
import { definition, references } from "./navigation.js";
import { prepareRename, rename } from "./rename.js";
import { pathOf, Workspace, type CheckedDocument } from "./workspace.js";

/** How long after the last keystroke a document is checked again and its diagnostics sent. */
const diagnosticsDelayMs = 100;

/** What an editor may pass in `initializationOptions`. */
interface InitializationOptions {
  readonly strict?: boolean;
}

/** Serves one editor session over the two streams until the editor says `exit` or closes them. */
export function startLanguageServer(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Connection {
  let shutDown = false;
  // Said before vscode-languageserver ends the process on the same event (exit 1 without a shutdown).
  input.once("end", () => {
    if (!shutDown)
      process.stderr.write("prosec lsp: the editor closed the connection without shutting the server down\n");
  });
  const connection = createConnection(input, output);
  connection.onShutdown(() => {
    shutDown = true;
  });
  const documents = new TextDocuments(TextDocument);
  let workspace = new Workspace(documents, { strict: false });
  const pending = new Map<string, NodeJS.Timeout>();

  const publish = (uri: string) => {
    clearTimeout(pending.get(uri));
    pending.delete(uri);
    const document = documents.get(uri) && workspace.documentAt(uri);
    if (document)
      void connection.sendDiagnostics({
        uri,
        version: document.text.version,
        diagnostics: document.diagnostics.map(toLspDiagnostic),
      });
  };
  const publishLater = (uri: string) => {
    clearTimeout(pending.get(uri));
    pending.set(
      uri,
      setTimeout(() => publish(uri), diagnosticsDelayMs),
    );
  };
  /** A change to one program can change the diagnostics of the open programs that `use` it. */
  const publishImporters = (uri: string) => {
    for (const importer of workspace.openImportersOf(pathOf(uri))) if (importer.uri !== uri) publishLater(importer.uri);
  };

  connection.onInitialize((params): InitializeResult => {
    const options = (params.initializationOptions ?? {}) as InitializationOptions;
    workspace = new Workspace(documents, { strict: options.strict === true });
    workspace.setFolders(
      params.workspaceFolders?.map((folder) => folder.uri) ?? (params.rootUri ? [params.rootUri] : []),
    );
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Full,
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        completionProvider: { triggerCharacters: ["{", ":", " "] },
        renameProvider: { prepareProvider: true },
      },
      serverInfo: { name: "prosec", version: compilerVersion },
    };
  });

  // TextDocuments reports an opened document as changed too, right after: that is not a keystroke.
  const justOpened = new Set<string>();
  documents.onDidOpen((event) => {
    justOpened.add(event.document.uri);
    publish(event.document.uri);
    publishImporters(event.document.uri);
  });
  documents.onDidChangeContent((event) => {
    if (justOpened.delete(event.document.uri)) return;
    publishLater(event.document.uri);
    publishImporters(event.document.uri);
  });
  documents.onDidClose((event) => {
    clearTimeout(pending.get(event.document.uri));
    pending.delete(event.document.uri);
    void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
    publishImporters(event.document.uri);
  });
  // Files changed on disk (a checkout, another editor): the open programs may import them.
  connection.onDidChangeWatchedFiles(() => documents.all().forEach((document) => publishLater(document.uri)));

  const at = <T>(
    params: TextDocumentPositionParams,
    answer: (document: CheckedDocument, offset: number) => T,
  ): T | undefined => {
    const document = workspace.documentAt(params.textDocument.uri);
    return document && answer(document, document.text.offsetAt(params.position));
  };
  connection.onHover((params) => at(params, (document, offset) => hover(workspace, document, offset)) ?? null);
  connection.onDefinition(
    (params) => at(params, (document, offset) => definition(workspace, document, offset)) ?? null,
  );
  connection.onReferences(
    (params) =>
      at(params, (document, offset) => references(workspace, document, offset, params.context.includeDeclaration)) ??
      [],
  );
  connection.onCompletion((params) => at(params, (document, offset) => completion(document, offset)) ?? []);
  connection.onDocumentSymbol((params) => {
    const document = workspace.documentAt(params.textDocument.uri);
    return document ? documentSymbols(document) : [];
  });
  connection.onPrepareRename(
    (params) => at(params, (document, offset) => prepareRename(workspace, document, offset)) ?? null,
  );
  connection.onRenameRequest(
    (params) => at(params, (document, offset) => rename(workspace, document, offset, params.newName)) ?? null,
  );

  documents.listen(connection);
  connection.listen();
  return connection;
}
