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
      const report = await initProject(argv.dir);
      for (const line of report.lines) process.stdout.write(`${line}\n`);
      const into = relative(process.cwd(), resolve(argv.dir));
      const project = resolve(argv.dir);
      const prosec = relative(project, packageRoot());
      // Run from a checkout or an unpacked tarball: install that. Run from the project's own node_modules: it is in.
      const from = prosec.split("/").filter((part) => part === "..").length > 2 ? packageRoot() : prosec;
      const install = prosec.startsWith("node_modules")
        ? ""
        : `npm install ${from.startsWith(".") || from.startsWith("/") ? from : `./${from}`} && `;
      process.stdout.write(
        [
          "",
          "next:",
          ...(into === "" ? [] : [`  cd ${into}`]),
          `  ${install}npm install --save-dev typescript@6 @types/node@20`,
          "  npm run build && npm test",
          "",
        ].join("\n"),
      );
      process.exitCode = EXIT.ok;
    },
  );
}
