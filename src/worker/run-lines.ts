/**
 * The runs of `prosec submit --inputs FILE`: JSON lines, one run a line, each line an object of the
 * run's inputs (`{"topic": "tea"}`). Blank lines are skipped. Every line is checked before any run is
 * submitted, so a bad line submits nothing.
 */
import { readFileSync } from "node:fs";
import type { ProgramInfo, Value } from "../../runtime/types.js";
import { UsageError } from "../errors.js";

export interface RunLine {
  /** 1-based, as an editor shows it. */
  readonly number: number;
  readonly inputs: { readonly [name: string]: Value };
}

export function readRunLines(file: string, program: ProgramInfo): RunLine[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--inputs ${file}: cannot read ${file}`);
  }
  const runs: RunLine[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const number = index + 1;
    let inputs: unknown;
    try {
      inputs = JSON.parse(line);
    } catch (error) {
      throw new UsageError(`${file}:${number}: not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs))
      throw new UsageError(`${file}:${number}: write each run as an object of its inputs, e.g. {"topic": "tea"}`);
    for (const name of Object.keys(inputs)) {
      if (!program.inputs.some((input) => input.name === name)) {
        const known = program.inputs.map((input) => input.name);
        throw new UsageError(
          `${file}:${number}: ${program.name}.prose has no input "${name}" (${known.length === 0 ? "it declares no inputs" : `its inputs: ${known.join(", ")}`})`,
        );
      }
    }
    runs.push({ number, inputs: inputs as RunLine["inputs"] });
  }
  if (runs.length === 0) throw new UsageError(`--inputs ${file}: no runs in it (one JSON object a line)`);
  return runs;
}
