/**
 * Agent Skills (`skills: ["code-review"]`): a folder with a `SKILL.md` whose front matter has `name`
 * and `description`, found in the project's `skills/<name>/`, then `.claude/skills/<name>/`, then
 * `~/.claude/skills/<name>/` (DIALECT.md, "Tools beyond the built-ins"). A session's system prompt
 * lists each skill's name and description; the model reads a skill's body and files with `read_skill`,
 * which reads nothing outside that skill's folder (links that lead out, `..`, absolute paths and
 * anything but regular files are refused). A skill's scripts run only through `run_command`, under
 * the agent's own permissions: `read_skill` only reads.
 *
 * Every file of a skill is read as read_skill reads: opened first (O_NOFOLLOW, O_NONBLOCK), then
 * judged by what the descriptor is (a regular file) and where it is (inside the skill's real folder),
 * so a `SKILL.md` that is a link to `/proc/self/environ` or `~/.aws/credentials` (a hostile
 * repository's) never reaches the system prompt, and nothing swapped in after a check is followed.
 *
 * A resolved skill carries a digest of its files, which joins the fingerprint of the steps that use
 * it: an edited skill re-runs those steps on resume, and nothing else.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ToolDefinition } from "../types.js";
import { SKILL_DESCRIPTION_CHARS, SKILL_NAME_CHARS } from "./skill-limits.js";

export const SKILL_FILE = "SKILL.md";
/** What a digest reads of a skill folder at most: a skill is a few files of text. */
const MAX_FILES = 500;
const MAX_READ_CHARS = 200_000;

export interface ResolvedSkill {
  readonly name: string;
  readonly description: string;
  /** The real path of the skill's folder. */
  readonly folder: string;
  /** sha-256 of the folder's files (paths and contents), for step fingerprints. */
  readonly digest: string;
}

/** Where skills are looked for, in order. */
export function skillRoots(cwd: string, homeDir: string): string[] {
  return [join(cwd, "skills"), join(cwd, ".claude", "skills"), join(homeDir, ".claude", "skills")];
}

/** The names of the skill folders that exist under the roots (what `check` suggests from). */
export function installedSkills(cwd: string, homeDir: string): string[] {
  const names = new Set<string>();
  for (const root of skillRoots(cwd, homeDir)) {
    let entries: string[];
    try {
      entries = readdirSync(root);
    } catch {
      continue;
    }
    for (const entry of entries) if (isFile(join(root, entry, SKILL_FILE))) names.add(entry);
  }
  return [...names].sort();
}

/** The skill `name`, from the first root that has it; undefined when none does. */
export function resolveSkill(name: string, cwd: string, homeDir: string): ResolvedSkill | undefined {
  if (!/^[\w.-]+$/.test(name) || name === "." || name === "..") return undefined;
  for (const root of skillRoots(cwd, homeDir)) {
    const skill = skillIn(join(root, name), name);
    if (skill !== undefined) return skill;
  }
  return undefined;
}

/** The skill whose folder is `folder` (a legacy `import "name" from "./folder"`); undefined without its SKILL.md. */
export function skillIn(folder: string, name: string): ResolvedSkill | undefined {
  if (!isFile(join(folder, SKILL_FILE))) return undefined;
  const real = realpathSync.native(folder);
  const body = readInside(real, SKILL_FILE);
  if (body instanceof Error) return undefined;
  const front = frontMatter(body);
  return {
    name: front["name"] ?? name,
    description: front["description"] ?? firstLine(body),
    folder: real,
    digest: digestOf(real),
  };
}

/** The lines a system prompt adds for the resolved skills. */
export function skillListing(skills: readonly ResolvedSkill[]): string {
  return [
    "Skills you may draw on (read a skill's SKILL.md with read_skill before you use it):",
    // Cut at the format's limits, which the cost bound counts on.
    ...skills.map(
      (skill) =>
        `- ${skill.name.slice(0, SKILL_NAME_CHARS)}: ${skill.description.replace(/\s+/g, " ").slice(0, SKILL_DESCRIPTION_CHARS)}`,
    ),
  ].join("\n");
}

/** `read_skill`, confined to the folders of `skills`. */
export function readSkillTool(skills: readonly ResolvedSkill[]): ToolDefinition {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  return {
    name: "read_skill",
    description:
      "Read a file of one of your skills: its SKILL.md (the default) or another file in the skill's folder; a folder path lists its files.",
    inputSchema: {
      type: "object",
      properties: {
        skill: { type: "string", description: `The skill: ${skills.map((skill) => skill.name).join(", ")}` },
        path: { type: "string", description: "A path inside the skill's folder (default SKILL.md)" },
      },
      required: ["skill"],
    },
    repeatable: true,
    run(input) {
      const skill = byName.get(String(input["skill"]));
      if (skill === undefined)
        throw new Error(`No skill ${JSON.stringify(input["skill"])}; the skills are ${[...byName.keys()].join(", ")}.`);
      const asked = input["path"] === undefined ? SKILL_FILE : String(input["path"]);
      const path = insideSkill(skill, asked);
      if (statSync(path).isDirectory())
        return listFiles(path)
          .map((file) => relative(skill.folder, file))
          .join("\n");
      // Where the skill's scripts are: a skill in ~/.claude/skills is outside the working directory,
      // bound read-only into the sandbox of the agent's commands at this path.
      const where =
        path === join(skill.folder, SKILL_FILE)
          ? `[The skill's folder is ${skill.folder}: run its scripts from there with run_command.]\n`
          : "";
      const read = readInside(skill.folder, relative(skill.folder, path), asked);
      if (read instanceof Error) throw read;
      const text = where + read;
      return text.length <= MAX_READ_CHARS
        ? text
        : `${text.slice(0, MAX_READ_CHARS)}\n[... ${text.length - MAX_READ_CHARS} more characters not shown]`;
    },
  };
}

/** The real path of `asked` in the skill's folder, or an error: nothing outside it, only files and folders. */
function insideSkill(skill: ResolvedSkill, asked: string): string {
  if (asked === "" || isAbsolute(asked))
    throw new Error(`${asked || "(empty)"}: give a path inside the skill's folder.`);
  const joined = resolve(skill.folder, asked);
  const outside = (path: string): boolean => isOutside(skill.folder, path);
  if (outside(joined)) throw new Error(`${asked} is outside the skill's folder; read_skill reads only inside it.`);
  let real: string;
  try {
    real = realpathSync.native(joined);
  } catch {
    throw new Error(`${asked}: no such file in the skill ${skill.name}.`);
  }
  if (outside(real)) throw new Error(`${asked} leads outside the skill's folder; read_skill reads only inside it.`);
  const stat = statSync(real);
  if (!stat.isFile() && !stat.isDirectory()) throw new Error(`${asked} is not a regular file.`);
  return real;
}

function listFiles(folder: string): string[] {
  const found: string[] = [];
  const visit = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= MAX_FILES) return;
      const path = join(current, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) found.push(path);
    }
  };
  visit(folder);
  return found;
}

/** The folder's files (links not followed), their paths and contents, hashed in a fixed order. */
function digestOf(folder: string): string {
  const hash = createHash("sha256");
  for (const file of listFiles(folder)) {
    hash.update(relative(folder, file).split(sep).join("/"));
    hash.update("\0");
    const read = readInside(folder, relative(folder, file));
    hash.update(read instanceof Error ? `(unreadable: ${read.message})` : read);
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** `key: value` lines between the opening `---` and the next. */
function frontMatter(text: string): Record<string, string> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const fields: Record<string, string> = {};
  for (const line of match?.[1]?.split(/\r?\n/) ?? []) {
    const field = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (field !== undefined && field !== null) fields[field[1]!] = unquote(field[2]!.trim());
  }
  return fields;
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

function firstLine(text: string): string {
  return (
    text
      .replace(/^---[\s\S]*?---/, "")
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? ""
  );
}

function isOutside(folder: string, path: string): boolean {
  return path !== folder && !path.startsWith(`${folder}${sep}`);
}

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * The text of `path` (relative) in the real folder `folder`, or why it may not be read: opened first,
 * not following a last link nor waiting on a FIFO, then judged by its descriptor, a regular file whose
 * real path (`/proc/self/fd/N`) is inside the folder. A link inside that leads inside is read.
 */
function readInside(folder: string, path: string, asked = path): string | Error {
  let real: string;
  try {
    real = realpathSync.native(join(folder, path));
  } catch {
    return new Error(`${asked}: no such file in the skill's folder.`);
  }
  const leadsOut = new Error(`${asked} leads outside the skill's folder; read_skill reads only inside it.`);
  if (isOutside(folder, real)) return leadsOut;
  let descriptor: number;
  try {
    descriptor = openSync(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" ? leadsOut : new Error(`${asked} cannot be read (${code ?? "unknown error"}).`);
  }
  try {
    if (!fstatSync(descriptor).isFile()) return new Error(`${asked} is not a regular file.`);
    const named = namedByDescriptor(descriptor);
    if (named !== undefined && isOutside(folder, named)) return leadsOut;
    return readFileSync(descriptor, "utf8");
  } finally {
    closeSync(descriptor);
  }
}

/** The path the kernel says a descriptor names (Linux); undefined where /proc/self/fd is missing. */
function namedByDescriptor(descriptor: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile() || statSync(path).isFile();
  } catch {
    return false;
  }
}
