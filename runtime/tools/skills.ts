/**
 * Agent Skills (`skills: ["code-review"]`): a folder with a `SKILL.md` whose front matter has `name`
 * and `description`, found in the project's `skills/<name>/`, then `.claude/skills/<name>/`, then
 * `~/.claude/skills/<name>/` (DIALECT.md, "Tools beyond the built-ins"). A session's system prompt
 * lists each skill's name and description; the model reads a skill's body and files with `read_skill`,
 * which reads nothing outside that skill's folder (links that lead out, `..`, absolute paths and
 * anything but regular files are refused). A skill's scripts run only through `run_command`, under
 * the agent's own permissions: `read_skill` only reads.
 *
 * Every file of a skill is read as read_skill reads (skill-files.ts): opened first, judged by its
 * descriptor, so a `SKILL.md` that is a link to `/proc/self/environ` or `~/.aws/credentials` (a
 * hostile repository's) never reaches the system prompt; and read up to a bound, so a huge file
 * neither fills memory nor fails the sessions that use the skill.
 *
 * A resolved skill carries a digest of its files, which joins the fingerprint of the steps that use
 * it: an edited skill re-runs those steps on resume, and nothing else.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { ToolDefinition } from "../types.js";
import { SKILL_DESCRIPTION_CHARS, SKILL_NAME_CHARS } from "./skill-limits.js";
import { digestOf, isOutside, listFiles, readInside } from "./skill-files.js";

export const SKILL_FILE = "SKILL.md";
/** What read_skill shows of a file at most, and the bytes it reads for that. */
const MAX_READ_CHARS = 200_000;
const MAX_READ_BYTES = 4 * MAX_READ_CHARS;
/** What is read of a SKILL.md for its listing: its front matter and first line are near its top. */
const SKILL_HEAD_BYTES = 1024 * 1024;

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
  const head = readInside(real, SKILL_FILE, SKILL_HEAD_BYTES);
  if (head instanceof Error) return undefined;
  const front = frontMatter(head.text);
  return {
    name: front["name"] ?? name,
    description: front["description"] ?? firstLine(head.text),
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
      const read = readInside(skill.folder, relative(skill.folder, path), MAX_READ_BYTES, asked);
      if (read instanceof Error) throw read;
      const text = where + read.text;
      if (read.cut) return `${text.slice(0, MAX_READ_CHARS)}\n[... the rest of its ${read.size} bytes not shown]`;
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

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile() || statSync(path).isFile();
  } catch {
    return false;
  }
}
