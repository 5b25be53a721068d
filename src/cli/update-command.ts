import type { Argv } from "yargs";
import { readLockfile } from "../project/lockfile.js";
import { projectRoot, updatePrograms } from "../registry/project.js";
import { EXIT } from "../exit-codes.js";
import { checkedRefs, programCount, registrySettings, withRegistry } from "./registry-session.js";

interface UpdateArguments {
  readonly refs: readonly string[];
}

/** `prosec update [ref...]`: fetch pinned programs again (all of them when none is named) and re-pin them. */
export function updateCommand(yargs: Argv): Argv {
  return yargs.command<UpdateArguments>(
    "update [refs..]",
    "Fetch pinned programs again (every one in prose.lock when none is named) and pin what the registry serves now",
    (command) =>
      command.positional("refs", {
        type: "string",
        array: true,
        default: [],
        describe: "handle/slug, @handle/slug or an http(s) URL already in prose.lock",
      }),
    async (argv) => {
      const refs = checkedRefs(argv.refs);
      process.exitCode = await withRegistry(async () => {
        const settings = registrySettings();
        const before = readLockfile(projectRoot(settings.cwd)).programs;
        const programs = await updatePrograms(refs, settings);
        const changed = programs.filter((program) => before[program.key]?.sha256 !== program.sha256);
        for (const program of changed) {
          const was = before[program.key]?.sha256;
          process.stderr.write(
            `${program.key}: ${was === undefined ? "new" : `${was.slice(0, 12)}…`} → ${program.sha256.slice(0, 12)}…\n`,
          );
        }
        process.stderr.write(`prose.lock: ${programCount(programs.length)} refreshed, ${changed.length} changed\n`);
        return EXIT.ok;
      });
    },
  );
}
