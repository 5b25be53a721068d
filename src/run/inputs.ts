/**
 * Inputs for `prosec run`: `--input name=value` (or `name=@file` to read the value from a file), and
 * on a terminal, a prompt for every input the run asks for that was not given.
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { UsageError } from "../errors.js";
import { terminalText } from "../printable.js";
import type { InputDefinition, ProgramInfo } from "../../runtime/index.js";
import { questionsNamed, type NamedQuestion } from "../../runtime/stored-runs.js";

export function parseInputArguments(
  list: readonly string[],
  program: ProgramInfo,
  waiting: readonly NamedQuestion[] = [],
): Record<string, string> {
  const inputs = parseAssignments(list, "--input ");
  for (const name of Object.keys(inputs)) {
    // A resumed run also takes answers to what it waits for: a called program's input (`gate.confirm`) too.
    if (!program.inputs.some((input) => input.name === name) && questionsNamed(waiting, name).length === 0) {
      const known = program.inputs.map((input) => input.name);
      throw new UsageError(
        `--input ${name}: ${program.name}.prose has no input "${name}" (${known.length === 0 ? "it declares no inputs" : `its inputs: ${known.join(", ")}`})`,
      );
    }
  }
  return inputs;
}

/** `name=value` or `name=@file` arguments (of `--input`, or of `prosec answer`, whose `flag` is ""). */
export function parseAssignments(list: readonly string[], flag: string): Record<string, string> {
  const inputs = new Map<string, string>();
  for (const argument of list) {
    const equals = argument.indexOf("=");
    if (equals <= 0)
      throw new UsageError(`${flag}${argument}: write it as name=value (or name=@file to read the value from a file)`);
    const name = argument.slice(0, equals);
    const value = argument.slice(equals + 1);
    if (inputs.has(name)) throw new UsageError(`${flag}${name} is given twice`);
    inputs.set(name, value.startsWith("@") ? readInputFile(`${flag}${name}`, value.slice(1)) : value);
  }
  // fromEntries defines each key: an input named `__proto__` is a key, where `inputs[name] =` set the prototype.
  return Object.fromEntries(inputs);
}

/**
 * The parameters not given: an input asked mid-program is not needed up front (the run waits for
 * it), nor one with a default.
 */
export function missingParameters(
  program: ProgramInfo,
  given: { readonly [name: string]: unknown },
): InputDefinition[] {
  return program.inputs.filter(
    (input) => input.midProgram !== true && input.hasDefault !== true && !Object.hasOwn(given, input.name),
  );
}

/** The usage error for inputs a run needs and was not given, naming each with its prompt. */
export function missingInputs(missing: readonly InputDefinition[]): UsageError {
  return new UsageError(
    `missing input${missing.length === 1 ? "" : "s"}: ${missing.map((input) => `--input ${input.name}=... (${input.prompt})`).join(", ")}`,
  );
}

function readInputFile(argument: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    throw new UsageError(`${argument}=@${path}: cannot read ${path}`);
  }
}

/** Asks on the terminal. Ctrl-C stops the run as it does anywhere else; a closed input is no answer. */
export async function askOnTerminal(definition: InputDefinition, signal: AbortSignal): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  prompt.on("SIGINT", () => process.emit("SIGINT"));
  try {
    return await new Promise<string>((resolve, reject) => {
      prompt.once("close", () =>
        reject(new UsageError(`no answer for the input "${definition.name}" (the terminal input was closed)`)),
      );
      // A program may be someone else's: its prompt reaches the terminal without escape sequences.
      prompt.question(terminalText(`${definition.name} (${definition.prompt}): `), { signal }).then(resolve, reject);
    });
  } finally {
    prompt.close();
  }
}
