import { text, type Value } from "../../runtime/index.js";

/** A run's outputs on stdout: `## name` sections, or with `json` one `{"type":"outputs"}` line. */
export function printOutputs(outputs: { readonly [name: string]: Value }, json: boolean, runId: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ type: "outputs", runId, outputs })}\n`);
    return;
  }
  for (const [name, value] of Object.entries(outputs)) process.stdout.write(`## ${name}\n\n${text(value).trimEnd()}\n\n`);
}
