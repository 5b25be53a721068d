/**
 * What the parts of a run share: its core, its program and options, and its state folder. The run's
 * lifecycle (lifecycle.ts) owns them; sessions, inputs, branches, reads and calls into used programs
 * work through this interface.
 */
import type { RunFolder } from "../durable/run-folder.js";
import type { ProgramInfo, RunOptions } from "../types.js";
import type { RunCore } from "./core.js";

export interface RunScope {
  readonly core: RunCore;
  readonly program: ProgramInfo;
  readonly options: RunOptions;
  readonly runId: string;
  /** Where the run keeps its state, durable or not (a called program's is under its caller's `imports/`). */
  readonly runDir: string;
  /** The durable state folder, once open (with `RunOptions.runDir`, or inside a durable caller's). */
  readonly folder: RunFolder | undefined;
}
