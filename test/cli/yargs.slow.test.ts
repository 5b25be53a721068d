/**
 * The CLI's parser on `prosec run`'s path (issue 45): yargs does not render a command's help ahead of
 * need, and the run bundle's own copy of yargs parses and explains the arguments as dist/'s does.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Argv } from "yargs";
import { describe, expect, it } from "vitest";
import { withoutHelpKeptAhead, yargs } from "../../src/cli/yargs.js";
import { prosec, repositoryRoot } from "../support/cli.js";

interface UsageInternals {
  getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } };
}

/** A parser with one command, `go`, whose handler notes whether the command's help is rendered by then. */
function parserOf(args: readonly string[], keptAhead: boolean): { parser: Argv; cached: () => boolean | undefined } {
  let cached: boolean | undefined;
  const base = yargs([...args]);
  const parser = (keptAhead ? base : withoutHelpKeptAhead(base))
    .command(
      "go [file]",
      "go somewhere",
      (command) => command.option("far", { type: "boolean", describe: "how far to go" }),
      async () => {
        // yargs renders it (when it does) right after the handler starts: look after the first await.
        await Promise.resolve();
        cached = (parser as unknown as UsageInternals).getInternalMethods().getUsageInstance().hasCachedHelpMessage();
      },
    )
    .strict()
    .help();
  return { parser, cached: () => cached };
}

describe("yargs on the run path", () => {
  it("does not render the command's help as its handler starts", async () => {
    const plain = parserOf(["go", "x", "--far"], true);
    await plain.parser.parseAsync();
    // The check can fail: yargs 17 on its own renders it.
    expect(plain.cached()).toBe(true);

    const lean = parserOf(["go", "x", "--far"], false);
    await lean.parser.parseAsync();
    expect(lean.cached()).toBe(false);
  });

  it("renders the same help as before when a usage error asks for it", async () => {
    const helpAfterError = async (keptAhead: boolean): Promise<string> => {
      const { parser } = parserOf(["go", "x", "--farther"], keptAhead);
      // main.ts's way: a usage error stops the parse, then the help is asked for.
      const parse = async () =>
        parser
          .fail((message) => {
            throw new Error(message);
          })
          .parseAsync();
      await expect(parse()).rejects.toThrow(/Unknown argument: farther/);
      return parser.getHelp();
    };
    const help = await helpAfterError(false);
    expect(help).toContain("go somewhere");
    expect(help).toContain("--far");
    expect(help).toBe(await helpAfterError(true));
  });

  it("prosec run parses with the bundle's copy of yargs, with the same help and messages as dist/'s", () => {
    const bundle = join(repositoryRoot, "dist/src/bundle");
    expect(existsSync(join(bundle, "yargs/factory.cjs"))).toBe(true);
    // Its messages, read from beside it (yargs looks for them at ../locales).
    expect(existsSync(join(bundle, "locales/en.json"))).toBe(true);
    expect(readFileSync(join(bundle, "cli.js"), "utf8")).toContain('"./yargs/factory.cjs"');
    expect(readFileSync(join(bundle, "cli.js"), "utf8")).not.toMatch(/\("yargs(\/yargs)?"\)/);

    // bin/prosec loads the bundle for `run`; dist/'s modules otherwise.
    const fromDist = (args: readonly string[]) =>
      spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { main } = await import(${JSON.stringify(join(repositoryRoot, "dist/src/cli/main.js"))}); process.exitCode = await main(${JSON.stringify(args)});`,
        ],
        { cwd: repositoryRoot, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
      );
    for (const args of [
      ["run", "--help"],
      ["run", "x.prose", "--concurrency"],
      ["run", "x.prose", "--sandbox", "sometimes"],
    ]) {
      const bundled = prosec(args);
      const plain = fromDist(args);
      expect(bundled.stdout + bundled.stderr).not.toBe("");
      expect({ status: bundled.status, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual({
        status: plain.status,
        stdout: plain.stdout,
        stderr: plain.stderr,
      });
    }
  });
});
