import type { Argv } from "yargs";

export type OutputFormat = "text" | "json";

/** Every command with machine-readable output takes `--format json`, and `--json` as its short form. */
export interface FormatArguments {
  readonly format: OutputFormat;
  readonly json: boolean;
}

export function withFormat<T>(command: Argv<T>, json = "print JSON instead of text"): Argv<T & FormatArguments> {
  return command
    .option("format", {
      choices: ["text", "json"] as const,
      default: "text" as const,
      describe: `output format (json: ${json})`,
    })
    .option("json", { type: "boolean", default: false, describe: "the same as --format json" })
    .middleware((argv: { format?: OutputFormat; json?: boolean }) => {
      if (argv.json) argv.format = "json";
      argv.json = argv.format === "json";
    }) as Argv<T & FormatArguments>;
}
