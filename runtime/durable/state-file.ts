/**
 * `state.md`: where a run is, as annotated program text (state/filesystem.md, "state.md"). Rendered
 * from a `RunTrace`, which the run folder keeps up to date from the run's events.
 */
import type { BindingKind, ProgramSource } from "./program-source.js";
import { fenceFor } from "./program-source.js";

export type RunStatus = "running" | "complete" | "failed" | "interrupted" | "waiting";

export interface BindingEntry {
  readonly name: string;
  readonly kind: BindingKind | "anonymous";
  readonly path: string;
  readonly executionId: number | undefined;
}

export interface FrameEntry {
  readonly executionId: number;
  readonly block: string;
  readonly depth: number;
}

/** What state.md shows, updated as the run goes. */
export class RunTrace {
  status: RunStatus = "running";
  error: string | undefined;
  updatedAt: Date;
  /** Lines with a step in flight, and how many. */
  readonly executing = new Map<number, number>();
  readonly completed = new Set<number>();
  /** The binding file last written from each line. */
  readonly written = new Map<number, string>();
  readonly parallels = new Map<number, { branches: number; succeeded: number; failed: number; running: boolean }>();
  readonly loops = new Map<number, number>();
  readonly bindings = new Map<string, BindingEntry>();
  readonly agents = new Map<string, { scope: string; path: string }>();
  readonly frames = new Map<number, FrameEntry>();

  constructor(
    readonly runId: string,
    readonly programFile: string,
    readonly startedAt: Date,
  ) {
    this.updatedAt = startedAt;
  }

  start(line: number): void {
    this.executing.set(line, (this.executing.get(line) ?? 0) + 1);
  }

  finish(line: number): void {
    const left = (this.executing.get(line) ?? 1) - 1;
    if (left > 0) this.executing.set(line, left);
    else this.executing.delete(line);
    this.completed.add(line);
  }
}

const ANNOTATION_COLUMN = 56;

export function renderState(trace: RunTrace, source: ProgramSource): string {
  const sections = [
    "# Execution State",
    [
      `run: ${trace.runId}`,
      `program: ${trace.programFile}`,
      `status: ${trace.status}`,
      `started: ${trace.startedAt.toISOString()}`,
      `updated: ${trace.updatedAt.toISOString()}`,
      ...(trace.error === undefined ? [] : [`error: ${trace.error.replace(/\s+/g, " ")}`]),
    ].join("\n"),
    "## Execution Trace",
    executionTrace(trace, source),
    ...activeConstructs(trace, source),
    "## Index",
    "### Bindings",
    bindingIndex(trace),
    "### Agents",
    table(
      ["Name", "Scope", "Path"],
      [...trace.agents].map(([name, agent]) => [name, agent.scope, agent.path]),
    ),
    "## Call Stack",
    table(
      ["execution_id", "block", "depth", "status"],
      [...trace.frames.values()]
        .reverse()
        .map((frame, index) => [
          String(frame.executionId),
          frame.block,
          String(frame.depth),
          index === 0 ? "executing" : "waiting",
        ]),
    ),
  ];
  return `${sections.join("\n\n")}\n`;
}

/** Block calls' bindings listed at most; a run of thousands of calls would make state.md mostly index. */
const LISTED_BLOCK_BINDINGS = 100;

/** Every top-level binding, and the latest block calls' (the folder holds them all). */
function bindingIndex(trace: RunTrace): string {
  const entries = [...trace.bindings.values()];
  const scoped = entries.filter((entry) => entry.executionId !== undefined);
  const left = scoped.length - LISTED_BLOCK_BINDINGS;
  const dropped = new Set(left > 0 ? scoped.slice(0, left) : []);
  const listed = table(
    ["Name", "Kind", "Path", "Execution ID"],
    entries
      .filter((entry) => !dropped.has(entry))
      .map((entry) => [
        entry.name,
        entry.kind,
        entry.path,
        entry.executionId === undefined ? "(root)" : String(entry.executionId),
      ]),
  );
  return left > 0
    ? `${listed}\n\n${left} earlier bindings of block calls are not listed; their files are in bindings/.`
    : listed;
}

function executionTrace(trace: RunTrace, source: ProgramSource): string {
  const furthest = Math.max(0, ...trace.executing.keys(), ...trace.completed);
  let nextMarked = trace.status !== "running";
  const lines = source.lines.map((text, index) => {
    const line = index + 1;
    let note: string | undefined;
    if (trace.executing.has(line)) note = "<-- EXECUTING";
    else if (trace.written.has(line)) note = `--> ${trace.written.get(line)!}`;
    else if (trace.completed.has(line)) note = "(complete)";
    else if (!nextMarked && line > furthest && isStatement(text)) {
      note = "[...next...]";
      nextMarked = true;
    }
    return note === undefined ? text : `${text.padEnd(ANNOTATION_COLUMN)} # ${note}`;
  });
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  const body = lines.join("\n");
  const fence = fenceFor(body);
  return `${fence}prose\n${body}\n${fence}`;
}

function isStatement(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== "" && !trimmed.startsWith("#");
}

function activeConstructs(trace: RunTrace, source: ProgramSource): string[] {
  const parts: string[] = [];
  for (const [line, parallel] of trace.parallels) {
    if (!parallel.running) continue;
    const finished = parallel.succeeded + parallel.failed;
    parts.push(
      `### Parallel (line ${line})\n\n- branches: ${parallel.branches}\n- finished: ${finished} (${parallel.failed} failed)\n- running: ${parallel.branches - finished}`,
    );
  }
  const running = [...trace.executing.keys()];
  for (const [line, iteration] of trace.loops) {
    const end = line + source.statement(line, Infinity).split("\n").length;
    if (!running.some((at) => at >= line && at < end)) continue;
    parts.push(`### Loop (line ${line})\n\n- iteration: ${iteration + 1}`);
  }
  return parts.length === 0 ? [] : ["## Active Constructs", ...parts];
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "(none)";
  const cell = (text: string): string => text.replace(/\|/g, "\\|");
  return [header, header.map(() => "---"), ...rows].map((row) => `| ${row.map(cell).join(" | ")} |`).join("\n");
}
