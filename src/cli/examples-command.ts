/**
 * `prosec examples`: the OpenProse example programs that ship with prosec (examples/openprose/),
 * listed one a line, printed, or copied to start from.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Argv } from "yargs";
import { closest } from "../phases/2-analyze/index.js";
import { makeDirectory } from "../../runtime/stored-runs.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../errors.js";
import { packageRoot } from "../package-root.js";

export interface Example {
  /** The file name without `.prose`, e.g. `01-hello-world`. */
  readonly name: string;
  readonly path: string;
  /** The first line of its opening comment. */
  readonly title: string;
}

export function bundledExamples(): Example[] {
  const folder = join(packageRoot(), "examples", "openprose");
  return readdirSync(folder)
    .filter((file) => file.endsWith(".prose"))
    .sort()
    .map((file) => {
      const path = join(folder, file);
      return { name: file.slice(0, -".prose".length), path, title: titleOf(readFileSync(path, "utf8")) };
    });
}

function titleOf(source: string): string {
  const comment = source.split("\n").find((line) => /^#\s*\S/.test(line));
  return comment === undefined ? "" : comment.replace(/^#\s*/, "").trim();
}

/** An example by its name, with or without `.prose` or its number (`hello-world`, `1`). */
export function findExample(examples: readonly Example[], wanted: string): Example {
  const name = wanted.replace(/\.prose$/, "");
  const found = examples.find(
    (example) =>
      example.name === name ||
      example.name.replace(/^\d+-/, "") === name ||
      (/^\d+$/.test(name) && Number.parseInt(example.name, 10) === Number(name)),
  );
  if (found !== undefined) return found;
  const suggestion = closest(
    name,
    examples.flatMap((example) => [example.name, example.name.replace(/^\d+-/, "")]),
  );
  throw new UsageError(
    `no example \`${wanted}\`${suggestion === undefined ? "" : ` (did you mean \`${suggestion}\`?)`}: \`prosec examples\` lists them`,
  );
}

interface ExampleArguments {
  readonly name: string;
  readonly dir: string;
}

export function examplesCommand(yargs: Argv): Argv {
  return yargs.command(
    "examples",
    "List the example programs that come with prosec; show or copy one to start from",
    (command) =>
      command
        .command(
          "$0",
          "list the examples, one a line",
          (list) => list,
          () => {
            const examples = bundledExamples();
            const width = Math.max(...examples.map((example) => example.name.length));
            for (const example of examples) process.stdout.write(`${example.name.padEnd(width)}  ${example.title}\n`);
            process.stdout.write(
              `\n${examples.length} examples: \`prosec examples show NAME\` prints one, \`prosec examples copy NAME [dir]\` copies it\n`,
            );
            process.exitCode = EXIT.ok;
          },
        )
        .command<ExampleArguments>(
          "show <name>",
          "print an example program",
          (show) =>
            show.positional("name", {
              type: "string",
              demandOption: true,
              describe: "its name, e.g. 01-hello-world or hello-world",
            }),
          (argv) => {
            process.stdout.write(readFileSync(findExample(bundledExamples(), argv.name).path, "utf8"));
            process.exitCode = EXIT.ok;
          },
        )
        .command<ExampleArguments>(
          "copy <name> [dir]",
          "copy an example program into a folder (default: this one)",
          (copy) =>
            copy
              .positional("name", {
                type: "string",
                demandOption: true,
                describe: "its name, e.g. 01-hello-world or hello-world",
              })
              .positional("dir", { type: "string", default: ".", describe: "the folder to copy it into" }),
          (argv) => {
            const example = findExample(bundledExamples(), argv.name);
            const target = join(argv.dir, `${example.name}.prose`);
            if (existsSync(target))
              throw new UsageError(`${target} already exists: remove it, or copy into another folder`);
            makeDirectory(argv.dir);
            copyFileSync(example.path, target);
            const shown = relative(process.cwd(), target) || target;
            process.stdout.write(`wrote ${shown}\nnext: prosec run ${shown}\n`);
            process.exitCode = EXIT.ok;
          },
        ),
  );
}
