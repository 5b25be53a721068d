/**
 * The Agent Skills of a run (tools/skills.ts), resolved once per name and shared with the programs it
 * calls. A skill that is not installed is said once (a notice) and its sessions run without it.
 */
import { homedir } from "node:os";
import { resolveSkill, type ResolvedSkill } from "../tools/skills.js";
import type { RunOptions } from "../types.js";

export class RunSkills {
  private readonly resolved = new Map<string, ResolvedSkill | undefined>();

  constructor(
    private readonly options: RunOptions,
    private readonly notice: (message: string) => void,
  ) {}

  /** The skills of `names` that are installed, in the order named. */
  resolve(names: readonly string[] | undefined): ResolvedSkill[] {
    const found: ResolvedSkill[] = [];
    for (const name of names ?? []) {
      if (!this.resolved.has(name)) {
        const skill = resolveSkill(name, this.options.cwd ?? process.cwd(), this.options.homeDir ?? homedir());
        this.resolved.set(name, skill);
        if (skill === undefined)
          this.notice(
            `The skill ${JSON.stringify(name)} is not installed (skills/${name}/SKILL.md, .claude/skills/${name}/ or ~/.claude/skills/${name}/): the sessions that name it run without it.`,
          );
      }
      const skill = this.resolved.get(name);
      if (skill !== undefined) found.push(skill);
    }
    return found;
  }
}
