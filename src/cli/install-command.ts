import type { Argv } from "yargs";
import { installPrograms, verifyInstalled } from "../registry/project.js";
import { EXIT } from "../exit-codes.js";
import { terminalText } from "../printable.js";
import { programCount, registrySettings, withRegistry } from "./registry-session.js";

interface InstallArguments {
  readonly check: boolean;
}

/** `prosec install`: restore prose_modules/ from prose.lock; `--check` verifies that they agree (for CI). */
export function installCommand(yargs: Argv): Argv {
  return yargs.command<InstallArguments>(
    "install",
    "Restore the vendored programs in prose_modules/ from prose.lock (hashes must match)",
    (command) =>
      command.option("check", {
        type: "boolean",
        default: false,
        describe: "write nothing, fetch nothing: exit 1 unless prose_modules/ and prose.lock agree (for CI)",
      }),
    async (argv) => {
      process.exitCode = await withRegistry(async () => {
        if (argv.check) {
          const problems = verifyInstalled(process.cwd());
          // A problem names files a commit put in prose_modules/: their names print no escape sequence.
          for (const problem of problems) process.stdout.write(`${terminalText(problem)}\n`);
          process.stdout.write(
            problems.length === 0
              ? "prose_modules/ agrees with prose.lock\n"
              : `${problems.length} ${problems.length === 1 ? "problem" : "problems"}: run \`prosec install\` (or \`prosec update\`) and commit the result\n`,
          );
          return problems.length === 0 ? EXIT.ok : EXIT.failed;
        }
        const restored = await installPrograms(registrySettings());
        process.stderr.write(
          restored.length === 0 ? "prose_modules/ is up to date\n" : `restored ${programCount(restored.length)}\n`,
        );
        return EXIT.ok;
      });
    },
  );
}
