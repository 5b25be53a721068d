/**
 * The Agent Skills of a run (tools/skills.ts), resolved once per name and shared with the programs it
 * calls. A skill that is not installed is said once (a notice) and its sessions run without it.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { resolveSkill, skillIn, type ResolvedSkill } from "../tools/skills.js";
import type { ProgramInfo, RunOptions } from "../types.js";

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
