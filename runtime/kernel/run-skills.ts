/**
 * The Agent Skills of a run (tools/skills.ts), resolved once per name and shared with the programs it
 * calls. A skill that is not installed is said once (a notice) and its sessions run without it.
 *
 * A session records the skills it resolved, with their digests (`changedSkills`): on DBOS a checkpoint
 * of the session, so a worker that continues the run and resolves a skill to other files refuses
 * it. (A file run needs no such refusal: a skill is part of its steps' fingerprints, and an edited
 * one re-runs them on resume.)
 */
import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";
import { PROTECTED_PLACES, protectedPlaces } from "../tools/protected-names.js";
import { resolveSkill, skillIn, type ResolvedSkill } from "../tools/skills.js";
import { mcpServerPlaces } from "../tools/mcp/server-places.js";
import type { ProgramInfo, RunOptions, SessionSteps } from "../types.js";

export class RunSkills {
  private readonly resolved = new Map<string, ResolvedSkill | undefined>();

  constructor(
    private readonly options: RunOptions,
    private readonly notice: (message: string) => void,
  ) {}

  /**
   * The skills of `names` that are installed, in the order named; a name the program imports from a
   * local folder (`folders`, `ProgramInfo.skillFolders`) is that folder's skill.
   */
  resolve(names: readonly string[] | undefined, folders?: ProgramInfo["skillFolders"]): ResolvedSkill[] {
    const found: ResolvedSkill[] = [];
    const cwd = this.options.cwd ?? process.cwd();
    for (const name of names ?? []) {
      const local = folders !== undefined && Object.hasOwn(folders, name) ? folders[name] : undefined;
      const key = local === undefined ? name : `${name}\0${local}`;
      if (!this.resolved.has(key)) {
        const skill =
          local === undefined
            ? resolveSkill(name, cwd, this.options.homeDir ?? homedir())
            : skillIn(resolve(cwd, local), name);
        this.resolved.set(key, skill);
        if (skill === undefined)
          this.notice(
            local === undefined
              ? `The skill ${JSON.stringify(name)} is not installed (skills/${name}/SKILL.md, .claude/skills/${name}/ or ~/.claude/skills/${name}/): the sessions that name it run without it.`
              : `The skill ${JSON.stringify(name)} is imported from ${local}, which has no SKILL.md: the sessions that name it run without it.`,
          );
      }
      const skill = this.resolved.get(key);
      if (skill !== undefined) found.push(skill);
    }
    return found;
  }
}

/**
 * Where the run's skills are read, protected from its agents' writes (tools/protected-names.ts): the
 * skill roots, and the local skill folders (`ProgramInfo.skillFolders`) of `program` and of every
 * program it uses, whether or not it calls them: an agent that writes a used program's skill would
 * give the next session that loads it instructions of its choosing. Each folder is named as written
 * and where it really is (a link on the way), relative to the working directory, in lower case; one
 * outside the working directory is no agent's to write anyway.
 */
export function runSkillPlaces(program: ProgramInfo, cwd: string): readonly string[] {
  const folders = new Set<string>();
  const seen = new Set<ProgramInfo>();
  const realCwd = realpathSync.native(cwd);
  const add = (path: string): void => {
    const shown = path.split(sep).join("/") || ".";
    if (shown !== ".." && !shown.startsWith("../") && !isAbsolute(shown)) folders.add(shown.toLowerCase());
  };
  const visit = (info: ProgramInfo | undefined): void => {
    if (info === undefined || seen.has(info)) return;
    seen.add(info);
    for (const folder of Object.values(info.skillFolders ?? {})) {
      if (posix.isAbsolute(folder)) continue;
      add(posix.normalize(folder).replace(/\/+$/, ""));
      try {
        add(relative(realCwd, realpathSync.native(resolve(cwd, folder))));
      } catch {
        // Not there (yet): protected as written, and a command that makes it has it removed.
      }
    }
    for (const used of Object.values(info.uses ?? {})) visit(used);
  };
  visit(program);
  return protectedPlaces([...folders]);
}

/**
 * The identities (`device:inode`) of the run's skill folders that exist, the skill roots included,
 * taken before any command runs: a folder a command moves elsewhere keeps its identity, so a write
 * into the moved copy, before the move is undone or while another session's command holds it
 * there, is still refused (tools/permissions.ts).
 */
export function runSkillIdentities(
  program: ProgramInfo,
  cwd: string,
  /** Other protected folders (`mcpServerPlaces`), relative to `cwd`. */
  others: readonly string[] = [],
): ReadonlySet<string> {
  const identities = new Set<string>();
  const seen = new Set<ProgramInfo>();
  const add = (folder: string): void => {
    try {
      const stat = statSync(resolve(cwd, folder));
      if (stat.isDirectory()) identities.add(`${stat.dev}:${stat.ino}`);
    } catch {
      // Not there: nothing to follow.
    }
  };
  const visit = (info: ProgramInfo | undefined): void => {
    if (info === undefined || seen.has(info)) return;
    seen.add(info);
    for (const folder of Object.values(info.skillFolders ?? {})) if (!posix.isAbsolute(folder)) add(folder);
    for (const used of Object.values(info.uses ?? {})) visit(used);
  };
  for (const root of PROTECTED_PLACES) add(root);
  for (const folder of others) add(folder);
  visit(program);
  return identities;
}

/** What a run protects from every agent's writes: by path (relative to its folder), and its folders by identity. */
export interface RunPlaces {
  readonly places: readonly string[];
  readonly identities: ReadonlySet<string>;
}

/**
 * The run's skill places and the files `.mcp.json`'s stdio servers run from the project (started
 * outside any sandbox: tools/mcp/server-places.ts), with their folders' identities, taken now.
 */
export function runPlaces(program: ProgramInfo, cwd: string, mcpConfig: RunOptions["mcpConfig"]): RunPlaces {
  const servers = mcpServerPlaces(cwd, mcpConfig);
  return {
    places: [...runSkillPlaces(program, cwd), ...servers],
    identities: runSkillIdentities(program, cwd, servers),
  };
}

/** A skill as a session recorded it (a type, not an interface: it is a `Value`). */
type RecordedSkill = { readonly name: string; readonly folder: string; readonly digest: string };

/**
 * Records the skills a session resolved the first time it runs (`steps.once`); when the session is
 * run again from its record (DBOS: another worker continuing the run), why the run is refused when
 * skills' files differ from those recorded (each named, with where it was found); else undefined.
 */
export async function changedSkills(
  steps: SessionSteps,
  skills: readonly ResolvedSkill[],
): Promise<string | undefined> {
  const current: RecordedSkill[] = skills.map(({ name, folder, digest }) => ({ name, folder, digest }));
  const recorded = await steps.once("skills", () => Promise.resolve(current));
  const changed = recorded.flatMap((before) => {
    const now = current.find((skill) => skill.name === before.name);
    if (now?.digest === before.digest) return [];
    return [
      now === undefined
        ? `${before.name} (recorded from ${before.folder}) is not installed here`
        : `${before.name} (${now.folder}) is not the one recorded (${before.folder}, sha-256 ${before.digest.slice(0, 12)}; here ${now.digest.slice(0, 12)})`,
    ];
  });
  if (changed.length === 0) return undefined;
  return `This session was started with other skill files than this process resolves: ${changed.join("; ")}. A run is continued only with the skills it started with: install the same skill folders on every worker of the program (or submit the run again).`;
}
