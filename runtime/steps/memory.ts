/**
 * Persistent agents' memory, at the places `state/filesystem.md` gives:
 *
 * | persist            | folder                                  |
 * | ------------------ | --------------------------------------- |
 * | `true`             | `<runDir>/agents/<name>/` (this run)     |
 * | `project`          | `<cwd>/.prose/agents/<name>/`            |
 * | `user`             | `<home>/.prose/agents/<name>/`           |
 * | `{ path }`         | that folder, relative to the cwd        |
 *
 * The folder holds `memory.md` (the agent's compacted state) and one segment file per session,
 * `<name>-001.md`, `<name>-002.md`, ... Files are written atomically (temporary file, then rename),
 * except a session's summary added to `memory.md` as it was, which is appended in one write.
 *
 * What a session adds is recorded with its step (`RecordedStep.remembered`) and written here after
 * the step's record, never before: a crash before the record asks the session again on resume with
 * the memory as it was, and a crash after it is mended by the replay, which writes what the folder
 * lacks. A segment names the session it records (`timestamp:`, `run:`, `step:`), so a replay, a
 * second resume or a fork (which keeps the records it copies as they were) never records it twice.
 */
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { safeName, writeAtomically } from "../durable/files.js";
import { removeStaleTemporaries } from "../durable/stale-temporaries.js";
import type { Persist, RememberedSession } from "../types.js";

export interface MemoryPlaces {
  readonly cwd: string;
  readonly runDir: string;
  readonly homeDir: string;
}

export function memoryFolder(name: string, persist: Persist | undefined, places: MemoryPlaces): string | undefined {
  if (persist === undefined || persist === false) return undefined;
  const folder = safeName(name);
  if (persist === true) return join(places.runDir, "agents", folder);
  if (persist === "project") return join(places.cwd, ".prose", "agents", folder);
  if (persist === "user") return join(places.homeDir, ".prose", "agents", folder);
  return resolve(places.cwd, persist.path);
}

export async function readMemory(folder: string): Promise<string | undefined> {
  try {
    return await readFile(join(folder, "memory.md"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export interface SessionRecord {
  readonly agent: string;
  readonly prompt: string;
  /** What the session adds, as its step recorded it: the run and step it names, the new memory or the summary. */
  readonly remembered: RememberedSession;
}

/**
 * The segments of memory folders that name the session they record (`run:` and `step:` lines), by
 * folder: read once per folder when a replayed step is the first to look, kept up to date after.
 */
export class RecordedSegments {
  private readonly folders = new Map<string, Promise<Map<string, number>>>();

  private readonly tidied = new Set<string>();

  /** Before the run first writes to `folder`: removes the temporary memory files a killed process left there. */
  tidy(folder: string, agent: string): void {
    if (this.tidied.has(folder)) return;
    this.tidied.add(folder);
    const segment = segmentPattern(agent);
    removeStaleTemporaries(folder, false, (name) => name === "memory.md" || segment.test(name));
  }

  /** The number of the segment of `folder` that records `remembered`'s session, if any. */
  async find(folder: string, agent: string, remembered: RememberedSession): Promise<number | undefined> {
    let known = this.folders.get(folder);
    if (known === undefined) this.folders.set(folder, (known = readSegmentNames(folder, agent)));
    return (await known).get(sessionName(remembered));
  }

  /** A segment was written: a later look in this folder finds it (the folder is read only once). */
  async add(folder: string, remembered: RememberedSession, segment: number): Promise<void> {
    (await this.folders.get(folder))?.set(sessionName(remembered), segment);
  }
}

/**
 * Writes the next segment file and the new `memory.md`, once: the segment of a replayed step that
 * the folder holds already is not written again, and when it is the latest, a `memory.md` a crash
 * left without it is completed. The segment is written first, then `memory.md`.
 */
export async function recordSession(
  folder: string,
  record: SessionRecord,
  segments: RecordedSegments,
  replayed: boolean,
): Promise<void> {
  const { remembered } = record;
  await mkdir(folder, { recursive: true });
  segments.tidy(folder, record.agent);
  const numbers = await segmentNumbers(folder, record.agent);
  const latest = numbers.length === 0 ? 0 : Math.max(...numbers);
  // A session this process asked is recorded for the first time: only a replayed one may be on disk.
  const found = replayed ? await segments.find(folder, record.agent, remembered) : undefined;
  if (found !== undefined && found !== latest) return;
  const number = found ?? latest + 1;
  const padded = String(number).padStart(3, "0");
  if (found === undefined) {
    const segment = `# Segment ${padded}\n\ntimestamp: ${remembered.timestamp}\nprompt: ${JSON.stringify(record.prompt)}\nrun: ${remembered.run}\nstep: ${JSON.stringify(remembered.step)}\n\n## Summary\n\n${remembered.summary.trim()}\n`;
    await writeAtomically(join(folder, segmentFile(record.agent, padded)), segment);
    await segments.add(folder, remembered, number);
  }
  const header = `# Agent Memory: ${record.agent}`;
  const previous = await readMemory(folder);
  const heading = `## Segment ${padded} Summary`;
  const summary = `\n${heading}\n\n${remembered.summary.trim()}\n`;
  const memory =
    remembered.memory !== undefined
      ? remembered.memory.trimStart().startsWith("# Agent Memory")
        ? remembered.memory
        : `${header}\n\n${remembered.memory.trim()}\n`
      : undefined;
  if (found !== undefined && (memory === undefined ? previous?.includes(`\n${heading}\n`) : previous === memory))
    return;
  // A summary added to the memory as it was is appended: rewriting a memory that grows with every
  // session would write its whole length each time (a 1,000-iteration patrol wrote hundreds of MB).
  if (memory === undefined && previous !== undefined && /[^\n]\n$/.test(previous)) {
    await appendFile(join(folder, "memory.md"), summary, "utf8");
    return;
  }
  await writeAtomically(join(folder, "memory.md"), memory ?? `${(previous ?? `${header}\n`).trimEnd()}\n${summary}`);
}

function segmentFile(agent: string, padded: string): string {
  return `${safeName(agent)}-${padded}.md`;
}

/**
 * How a segment names its session: its run, step and the time it finished (a step of an edited
 * program asked again under the same site is another session).
 */
function sessionName(remembered: RememberedSession): string {
  return `${remembered.timestamp}\n${remembered.run}\n${JSON.stringify(remembered.step)}`;
}

const SESSION_LINES = /^timestamp: (.*)\nprompt: .*\nrun: (.*)\nstep: (".*")$/m;

/** The sessions the folder's segments name, each with its segment's number. */
async function readSegmentNames(folder: string, agent: string): Promise<Map<string, number>> {
  const names = new Map<string, number>();
  for (const number of await segmentNumbers(folder, agent)) {
    const path = join(folder, segmentFile(agent, String(number).padStart(3, "0")));
    const found = SESSION_LINES.exec(await readFile(path, "utf8").catch(() => ""));
    if (found !== null) names.set(`${found[1]}\n${found[2]}\n${found[3]}`, number);
  }
  return names;
}

function segmentPattern(agent: string): RegExp {
  return new RegExp(`^${safeName(agent).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d{3,})\\.md$`);
}

async function segmentNumbers(folder: string, agent: string): Promise<number[]> {
  const pattern = segmentPattern(agent);
  return (await readdir(folder))
    .map((file) => pattern.exec(file)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
}
