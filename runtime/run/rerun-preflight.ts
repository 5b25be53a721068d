/**
 * "A finished tool call never runs again" decided before a resumed run's first request: a session
 * whose tool calls with an effect finished (a command, an edited or written file) and that the
 * resume would run again, because its model now resolves to another id, or its own statement or its
 * agent's definition was edited (in the program or in a program it calls), refuses the resume at once. Refused as the
 * session is reached instead, steps before it that changed would have been paid for again first.
 *
 * What is known only as the run goes (a value it reads that changed) is still refused when the step
 * is reached (durability.ts).
 */
import type { FinishedWork } from "../durable/file-journal.js";
import { RerunRefused } from "../durable/durability.js";
import { recordedLine } from "../durable/fork.js";
import type { ProgramInfo } from "../types.js";
import { ProgramOutline } from "../address/outline.js";

export interface ResumedPrograms {
  readonly program: ProgramInfo;
  /** The program's text as the run recorded it, when it changed since. */
  readonly previous: string | undefined;
  /** The texts the run recorded of the programs it calls that changed since, by source path. */
  readonly earlierTexts: ReadonlyMap<string, string>;
  /** The model id a model name resolves to now. */
  readonly modelOf: (name: string | undefined) => string;
}

/** The refusal of the first session in `work` the resume would run again, or undefined. */
export function refusalBeforeResume(
  work: readonly FinishedWork[],
  programs: ResumedPrograms,
): RerunRefused | undefined {
  const outlines = new Map<string, { readonly before: ProgramOutline; readonly now: ProgramOutline }>();
  for (const session of work) {
    const line = recordedLine({ key: session.site });
    const program = programOf(session.site, programs.program);
    if (line === undefined || program === undefined) continue;
    const before = program === programs.program ? programs.previous : programs.earlierTexts.get(program.source);
    let outline = outlines.get(program.source);
    if (outline === undefined && before !== undefined && program.text !== undefined) {
      outline = { before: ProgramOutline.of(before), now: ProgramOutline.aligned(program.text, before) };
      outlines.set(program.source, outline);
    }
    // Its line in the program now, when its statement was kept (or edited in place).
    const site = outline?.before.site(line);
    const lineNow = outline === undefined ? line : site === undefined ? undefined : outline.now.lineOf(site);
    const refuse = (why: string): RerunRefused =>
      new RerunRefused(
        { kind: "session", at: { line: lineNow ?? line, column: 1 }, file: program.source },
        session.effects,
        why,
      );
    if (session.model !== undefined) {
      const now = programs.modelOf(session.model.name === "" ? undefined : session.model.name);
      if (now !== session.model.id) return refuse(`its model changed (${session.model.id} → ${now})`);
    }
    const agent = session.agent;
    if (
      outline !== undefined &&
      agent !== undefined &&
      outline.before.agentBlock(agent) !== outline.now.agentBlock(agent)
    )
      return refuse(`the definition of its agent ${agent} changed`);
    // A key recorded under an older text names that text's lines; the step's own check covers it.
    if (outline === undefined || !session.latestText || lineNow === undefined) continue;
    if (outline.before.block(outline.before.lineOf(site!) ?? line) !== outline.now.block(lineNow))
      return refuse(`its statement changed`);
  }
  return undefined;
}

/** The program a site's step belongs to: the main program, or one reached through its `use:` segments. */
function programOf(site: string, main: ProgramInfo): ProgramInfo | undefined {
  let program: ProgramInfo | undefined = main;
  for (const segment of site.split("/").slice(0, -1)) {
    const alias = /^use:([^@]+)@/.exec(segment)?.[1];
    if (alias !== undefined) program = program?.uses?.[alias];
  }
  return program;
}
