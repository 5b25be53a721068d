import { text, type Value } from "../../runtime/index.js";

/**
 * A run's outputs on stdout: `## name` sections, or with `json` one `{"type":"outputs"}` line. A
 * program that declares no outputs shows its final result instead (the `run-end` event's `result`).
 */
export function printOutputs(
  outputs: { readonly [name: string]: Value },
  json: boolean,
  runId: string,
  result?: string,
): void {
  const finalResult = Object.keys(outputs).length === 0 ? result : undefined;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ type: "outputs", runId, outputs, ...(finalResult === undefined ? {} : { result: finalResult }) })}\n`,
    );
    return;
  }
  if (finalResult !== undefined) process.stdout.write(`${finalResult.trimEnd()}\n`);
  for (const [name, value] of Object.entries(outputs))
    process.stdout.write(`## ${name}\n\n${text(value).trimEnd()}\n\n`);
}
