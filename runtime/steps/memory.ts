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
 */
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { safeName, writeAtomically } from "../durable/files.js";
import type { Persist } from "../types.js";

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
  /** The agent's new memory (from `update_memory`), or undefined when it did not give one. */
  readonly memory: string | undefined;
  readonly summary: string;
  readonly timestamp: Date;
}

/** Writes the next segment file and the new `memory.md`; returns the segment's file name. */
export async function recordSession(folder: string, record: SessionRecord): Promise<string> {
  await mkdir(folder, { recursive: true });
  const number = (await segmentCount(folder, record.agent)) + 1;
  const padded = String(number).padStart(3, "0");
  const segmentFile = `${safeName(record.agent)}-${padded}.md`;
  const segment = `# Segment ${padded}\n\ntimestamp: ${record.timestamp.toISOString()}\nprompt: ${JSON.stringify(record.prompt)}\n\n## Summary\n\n${record.summary.trim()}\n`;
  await writeAtomically(join(folder, segmentFile), segment);
  const header = `# Agent Memory: ${record.agent}`;
  const previous = await readMemory(folder);
  const summary = `\n## Segment ${padded} Summary\n\n${record.summary.trim()}\n`;
  // A summary added to the memory as it was is appended: rewriting a memory that grows with every
  // session would write its whole length each time (a 1,000-iteration patrol wrote hundreds of MB).
  if (record.memory === undefined && previous !== undefined && /[^\n]\n$/.test(previous)) {
    await appendFile(join(folder, "memory.md"), summary, "utf8");
    return segmentFile;
  }
  const memory =
    record.memory !== undefined
      ? record.memory.trimStart().startsWith("# Agent Memory")
        ? record.memory
        : `${header}\n\n${record.memory.trim()}\n`
      : `${(previous ?? `${header}\n`).trimEnd()}\n${summary}`;
  await writeAtomically(join(folder, "memory.md"), memory);
  return segmentFile;
}

async function segmentCount(folder: string, agent: string): Promise<number> {
  const pattern = new RegExp(`^${safeName(agent).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d{3,})\\.md$`);
  const numbers = (await readdir(folder))
    .map((file) => pattern.exec(file)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  return numbers.length === 0 ? 0 : Math.max(...numbers);
}
