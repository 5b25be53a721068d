import type { Argv } from "yargs";
import { addPrograms } from "../registry/project.js";
import { EXIT } from "../exit-codes.js";
import { checkedRefs, programCount, registrySettings, withRegistry } from "./registry-session.js";

interface AddArguments {
  readonly refs: readonly string[];
}

/** `prosec add <ref>...`: fetch programs (and what they use) into prose_modules/ and pin them in prose.lock. */
export function addCommand(yargs: Argv): Argv {
  return yargs.command<AddArguments>(
    "add <refs..>",
    "Fetch registry programs or URLs, and the programs they use, into prose_modules/ and pin them in prose.lock",
    (command) =>
      command.positional("refs", {
        type: "string",
        array: true,
        demandOption: true,
        describe: "handle/slug, @handle/slug or an http(s) URL",
      }),
    async (argv) => {
      const refs = checkedRefs(argv.refs);
      process.exitCode = await withRegistry(async () => {
        const programs = await addPrograms(refs, registrySettings());
        const fetched = programs.filter((program) => program.fetched).length;
        process.stderr.write(
          `prose.lock: ${programCount(programs.length)} pinned (${fetched} fetched, ${programs.length - fetched} already vendored)\n`,
        );
        return EXIT.ok;
      });
    },
  );
}
