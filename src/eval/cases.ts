/**
 * The cases of an eval: a JSON Lines file (one case a line) or a folder of `.json` files (one case
 * each). A case is `{ "name": "...", "inputs": { ... } }`: the eval program's inputs, by name. A case
 * that cannot be read is a usage error naming its file and line, before anything is spent.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { UsageError } from "../errors.js";
import type { Value } from "../../runtime/index.js";
import { jsonProblem } from "../../runtime/host.js";

export interface EvalCase {
  readonly name: string;
  readonly inputs: { readonly [name: string]: Value };
}

export function readCases(path: string): EvalCase[] {
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    throw new UsageError(`--cases ${path}: there is no such file or folder`);
  }
  const cases = folder ? casesOfFolder(path) : casesOfLines(path);
  if (cases.length === 0) throw new UsageError(`--cases ${path}: there are no cases in it`);
  const seen = new Set<string>();
  for (const { name } of cases) {
    if (seen.has(name)) throw new UsageError(`--cases ${path}: two cases are named "${name}"; name each once`);
    seen.add(name);
  }
  return cases;
}

function casesOfLines(file: string): EvalCase[] {
  const cases: EvalCase[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (line.trim() === "") return;
      cases.push(parseCase(line, `${file}:${index + 1}`, `case ${cases.length + 1}`));
    });
  return cases;
}

// A file of cases may be a pipe (`--cases <(jq ...)`): it is read as given. In a folder, only regular
// files (or links to them) are read: a FIFO named `x.json` would block the read for ever, a link to
// a device would never end.
function casesOfFolder(folder: string): EvalCase[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => {
      const file = join(folder, name);
      const kind = fileKind(file);
      if (kind !== "file") throw new UsageError(`--cases ${folder}: ${name} is ${kind}, not a file of a case`);
      return parseCase(readFileSync(file, "utf8"), file, basename(name, ".json"));
    });
}

function fileKind(file: string): string {
  let stats;
  try {
    stats = statSync(file);
  } catch {
    return "a link to nothing";
  }
  if (stats.isFile()) return "file";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isDirectory()) return "a folder";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

function parseCase(text: string, where: string, defaultName: string): EvalCase {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where}: a case is a JSON object (${jsonProblem(error)})`);
  }
  if (!isRecord(json) || !isRecord(json["inputs"]))
    throw new UsageError(`${where}: a case is {"name": "...", "inputs": {"input name": value, ...}}`);
  const name = json["name"] ?? defaultName;
  if (typeof name !== "string" || name.trim() === "")
    throw new UsageError(`${where}: a case's "name" is a string that is not empty`);
  for (const key of Object.keys(json))
    if (key !== "name" && key !== "inputs")
      throw new UsageError(`${where}: a case has "name" and "inputs", not "${key}"`);
  return { name, inputs: json["inputs"] as { readonly [name: string]: Value } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
