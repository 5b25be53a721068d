/**
 * The programs the language server knows: open documents (their text in the editor wins over the
 * file on disk), the files they `use`, and every `.prose` file under the workspace folders (for
 * references from other files). Each program is checked once per text and kept until it changes.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { UseStatement } from "../ast.js";
import { importCycle, programInterface, resolveUse, shownProblem, type UseTarget } from "../project/imports.js";
import { portable } from "../project/output-path.js";
import { programsUnder } from "../project/files.js";
import { checkProgram, type ImportResolution } from "../compile.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Analysis } from "../phases/2-analyze/index.js";
import { projectTools } from "../project/mcp-servers.js";

export interface CheckedDocument {
  /** As the editor names it (open documents) or as a `file:` URL. */
  readonly uri: string;
  /** The absolute path of a file; the URI itself for documents that are not files (`untitled:`). */
  readonly path: string;
  /** The text that was checked, with offset ↔ position conversion. */
  readonly text: TextDocument;
  /** What `prosec check` reports for this text. */
  readonly diagnostics: readonly Diagnostic[];
  /** Every statement parsed (`analysis` covers the whole program). */
  readonly complete: boolean;
  /**
   * Names and scopes of the whole program, or of the statements that parsed when some did not,
   * so that navigation keeps working while a line is half typed.
   */
  readonly analysis: Analysis;
  /** The file each local `use` names. */
  readonly imports: ReadonlyMap<UseStatement, string>;
  /** The MCP servers the `.mcp.json` nearest the file declares (none for a document that is not a file). */
  readonly mcpServers: readonly string[];
}

/** A check and the interfaces of the programs it imported, which it is only valid with. */
interface CachedCheck {
  readonly document: CheckedDocument;
  readonly interfaces: ReadonlyMap<string, ImportResolution>;
  /** What each `use` resolved to (a file, or a problem): `prosec add` or an edited prose.lock changes it. */
  readonly uses: ReadonlyMap<string, string>;
}

export interface WorkspaceOptions {
  /** Warnings count as errors, as with `prosec check --strict`. */
  readonly strict: boolean;
}

/** The text of open documents, by URI (the server's `TextDocuments`). */
export interface OpenDocuments {
  get(uri: string): TextDocument | undefined;
  all(): TextDocument[];
}

export class Workspace {
  private folders: string[] = [];
  private readonly checked = new Map<string, CachedCheck>();
  private readonly interfaces = new Map<string, { source: string | undefined; resolution: ImportResolution }>();
  private readonly disk = new Map<string, { stamp: string; source: string }>();

  constructor(
    private readonly open: OpenDocuments,
    private readonly options: WorkspaceOptions,
  ) {}

  setFolders(uris: readonly string[]): void {
    this.folders = uris.map(pathOf).filter((path) => isAbsolute(path));
  }

  /** The checked program behind a URI (open or on disk); undefined when there is no such file. */
  documentAt(uri: string): CheckedDocument | undefined {
    const opened = this.open.get(uri);
    return opened ? this.check(pathOf(uri), opened) : this.document(pathOf(uri));
  }

  /** The checked program at a path: the open document's text when it is open, else the file's. */
  document(path: string): CheckedDocument | undefined {
    const opened = this.openAt(path);
    if (opened) return this.check(path, opened);
    const source = this.readDisk(path);
    if (source === undefined) return undefined;
    const cached = this.checked.get(path)?.document.text;
    const text =
      cached && cached.getText() === source
        ? cached
        : TextDocument.create(pathToFileURL(path).href, "prose", 0, source);
    return this.check(path, text);
  }

  /** Every program that `use`s the file at `path`, open or under a workspace folder. */
  importersOf(path: string): CheckedDocument[] {
    const candidates = new Set([
      ...this.open.all().map((document) => pathOf(document.uri)),
      ...this.folders.flatMap(programsIn),
    ]);
    return [...candidates]
      .map((candidate) => this.document(candidate))
      .filter(
        (document): document is CheckedDocument =>
          document !== undefined && [...document.imports.values()].includes(path),
      );
  }

  /** Open documents that `use` the file at `path` (as last checked): their diagnostics depend on it. */
  openImportersOf(path: string): TextDocument[] {
    return this.open.all().filter((opened) => {
      const imports = this.checked.get(pathOf(opened.uri))?.document.imports;
      return imports !== undefined && [...imports.values()].includes(path);
    });
  }

  private check(path: string, live: TextDocument): CheckedDocument {
    const cached = this.checked.get(path);
    if (cached && this.isCurrent(cached, live)) return cached.document;
    // The editor's documents change in place: keep the text as it was checked.
    const text = TextDocument.create(live.uri, "prose", live.version, live.getText());
    const isFile = isAbsolute(path);
    const imports = new Map<string, string>();
    const interfaces = new Map<string, ImportResolution>();
    const uses = new Map<string, string>();
    const resolveImport = isFile
      ? (usePath: string): ImportResolution => {
          // Remote references resolve through prose.lock to their vendored copies, as `prosec check` does.
          const resolved = resolveUse(path, usePath);
          uses.set(usePath, resolutionKey(resolved));
          if (!("file" in resolved)) return shownProblem(resolved, this.folderOf(path));
          const target = resolved.file;
          imports.set(usePath, target);
          const cycle = importCycle(path, target);
          if (cycle)
            return { problem: "cycle", resolved: cycle.map((file) => portable(file, this.folderOf(path))).join(" → ") };
          interfaces.set(target, this.interfaceOf(target));
          return interfaces.get(target)!;
        }
      : undefined;
    const tools = isFile ? projectTools(path, this.folderOf(path)) : undefined;
    const checked = checkProgram(text.getText(), { resolveImport, strict: this.options.strict, ...tools });
    // With syntax errors too: the statements that do not parse are skipped, the rest is analysed.
    const analysis = checked.analysis;
    const document: CheckedDocument = {
      mcpServers: tools?.mcpServers.names ?? [],
      uri: text.uri,
      path,
      text,
      diagnostics: checked.diagnostics,
      complete: checked.complete,
      analysis,
      imports: new Map(
        [...analysis.imports.values()].flatMap((use) => {
          const target = imports.get(use.source.value);
          return target === undefined ? [] : [[use, target] as const];
        }),
      ),
    };
    this.checked.set(path, { document, interfaces, uses });
    return document;
  }

  /** Checked from this very text, against the imported programs as they are now. */
  private isCurrent(cached: CachedCheck, text: TextDocument): boolean {
    const previous = cached.document.text;
    if (previous.uri !== text.uri || previous.version !== text.version || previous.getText() !== text.getText())
      return false;
    return (
      [...cached.uses].every(([usePath, key]) => resolutionKey(resolveUse(cached.document.path, usePath)) === key) &&
      [...cached.interfaces].every(([target, resolution]) => this.interfaceOf(target) === resolution)
    );
  }

  /** An imported program's inputs and outputs, kept until its text changes. */
  private interfaceOf(path: string): ImportResolution {
    const source = this.openAt(path)?.getText() ?? this.readDisk(path);
    const cached = this.interfaces.get(path);
    if (cached && cached.source === source) return cached.resolution;
    const resolution = programInterface(source, portable(path, this.folderOf(path)));
    this.interfaces.set(path, { source, resolution });
    return resolution;
  }

  private openAt(path: string): TextDocument | undefined {
    return this.open.all().find((document) => pathOf(document.uri) === path);
  }

  /** A file's text, read again only when its size or modification time changed. */
  private readDisk(path: string): string | undefined {
    if (!isAbsolute(path)) return undefined;
    let stamp: string;
    try {
      const stats = statSync(path);
      if (!stats.isFile()) return undefined;
      stamp = `${stats.mtimeMs}:${stats.size}`;
    } catch {
      return undefined;
    }
    const cached = this.disk.get(path);
    if (cached?.stamp === stamp) return cached.source;
    const source = readFileSync(path, "utf8");
    this.disk.set(path, { stamp, source });
    return source;
  }

  /** The workspace folder holding `path` (paths in messages are relative to it, as `prosec check` run there shows them). */
  private folderOf(path: string): string {
    return this.folders.find((folder) => path.startsWith(folder + sep)) ?? dirname(path);
  }
}

/** The path a URI names: a file's absolute path, or the URI itself for other schemes. */
export function pathOf(uri: string): string {
  return uri.startsWith("file:") ? resolve(fileURLToPath(uri)) : uri;
}

function resolutionKey(target: UseTarget): string {
  return "file" in target ? target.file : `${target.problem} ${target.resolved}`;
}

function programsIn(folder: string): string[] {
  try {
    return programsUnder(folder);
  } catch {
    return [];
  }
}
