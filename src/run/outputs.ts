import type { Value } from "../../runtime/index.js";
import { text } from "../../runtime/stored-runs.js";
import { forStream } from "../printable.js";
import { jsonText } from "../json-text.js";

/**
 * A run's outputs on stdout: `## name` sections, or with `json` one `{"type":"outputs"}` line. A
 * program that declares no outputs shows its final result instead (the `run-end` event's `result`).
 * On a terminal the model's text loses its escape sequences; piped, it stays byte for byte.
 */
export function printOutputs(
  outputs: { readonly [name: string]: Value },
  json: boolean,
  runId: string,
  result?: string,
  out: NodeJS.WritableStream = process.stdout,
): void {
  const finalResult = Object.keys(outputs).length === 0 ? result : undefined;
  if (json) {
    out.write(
      `${jsonText({ type: "outputs", runId, outputs, ...(finalResult === undefined ? {} : { result: finalResult }) })}\n`,
    );
    return;
  }
  if (finalResult !== undefined) out.write(forStream(out, `${finalResult.trimEnd()}\n`));
  for (const [name, value] of Object.entries(outputs))
    out.write(forStream(out, `## ${name}\n\n${text(value).trimEnd()}\n\n`));
}
