import type { Argv } from "yargs";
import { EXIT } from "../exit-codes.js";

interface InitArguments {
  readonly dir: string;
}

export function initCommand(yargs: Argv): Argv {
  return yargs.command<InitArguments>(
    "init [dir]",
    "Set up a project: a starter program, npm scripts build/check/test, .gitignore, tsconfig.json, a golden test",
    (command) =>
      command.positional("dir", { type: "string", default: ".", describe: "the project folder (default: this one)" }),
    async (argv) => {
      const { initProject } = await import("../init/starter.js");
      const { relative, resolve } = await import("node:path");
      const { packageRoot } = await import("../package-root.js");
      const { prosecSource } = await import("../init/prosec-source.js");
      const report = await initProject(argv.dir);
      for (const line of report.lines) process.stdout.write(`${line}\n`);
      const into = relative(process.cwd(), resolve(argv.dir));
      // Run from the project's own node_modules: it is in. Else from where the project stands alone.
      const source = prosecSource(resolve(argv.dir), packageRoot());
      const pack = source?.pack === undefined ? "" : `npm pack --silent ${shellWord(source.pack)} && `;
      const install = source === undefined ? "" : `${pack}npm install ${shellWord(source.install)} && `;
      process.stdout.write(
        [
          "",
          "next:",
          ...(into === "" ? [] : [`  cd ${shellWord(into)}`]),
          `  ${install}npm install --save-dev typescript@6 @types/node@20`,
          "  npm run build && npm test",
          "",
        ].join("\n"),
      );
      process.exitCode = EXIT.ok;
    },
  );
}

/** A word as a shell reads it: quoted when it holds anything but the usual path characters. */
function shellWord(word: string): string {
  return /^[\w@./:+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
