/**
 * The command line's manners: help wrapped at spaces, suggestions for mistyped commands and options,
 * options named once and with their dashes, one `--format json` (alias `--json`) everywhere.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { usageMessage } from "../../src/cli/usage-errors.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const lastLine = (text: string) => text.trimEnd().split("\n").pop();

describe("prosec --help", () => {
  it("wraps at spaces within 100 columns, never inside a word, and ends with three example commands", () => {
    const help = prosec(["--help"]);
    expect(help.status).toBe(EXIT.ok);
    const lines = help.stdout.trimEnd().split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    // Every word of every description comes out whole: the ESM build of yargs cut "diag/nostics".
    const words = help.stdout.split(/\s+/);
    for (const word of ["diagnostics", "recursively", "TypeScript", "checkpointed"])
      expect(
        words.some((w) => w.includes(word)),
        word,
      ).toBe(true);
    const examples = lines.slice(lines.indexOf("Examples:") + 1);
    expect(lines).toContain("Examples:");
    expect(examples).toHaveLength(3);
    for (const example of examples) expect(example).toMatch(/^ {2}prosec \w+/);
  });

  it("shows every command's examples one to a line, whole, as they are to be typed", () => {
    const commands = [...prosec(["--help"]).stdout.matchAll(/^ {2}prosec (\w+)/gm)].map((match) => match[1]!);
    expect(commands).toContain("graph");
    for (const command of new Set(commands)) {
      const lines = prosec([command, "--help"]).stdout.trimEnd().split("\n");
      if (!lines.includes("Examples:")) continue;
      // yargs gives an example at most half the width and wraps the rest onto a line of its own.
      for (const example of lines.slice(lines.indexOf("Examples:") + 1))
        expect(example, `prosec ${command} --help`).toMatch(/^ {2}prosec \w+/);
    }
  });

  it("lists every command, the new ones included", () => {
    const help = prosec(["--help"]).stdout;
    for (const command of [
      "check",
      "build",
      "run",
      "worker",
      "submit",
      "status",
      "result",
      "migrate",
      "test",
      "runs",
      "examples",
    ])
      expect(help).toContain(`prosec ${command}`);
  });
});

describe("mistyped commands and options", () => {
  it("an unknown command gets the closest one", () => {
    const result = prosec(["chek", "x.prose"]);
    expect(result.status).toBe(EXIT.usage);
    expect(lastLine(result.stderr)).toBe("prosec: unknown command `chek` (did you mean `prosec check`?)");
  });

  it("an unknown option gets the closest option of its command", () => {
    const result = prosec(["check", "--frmat", "json", "fixtures"]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stdout).toBe("");
    // The suggestion alone, one line: not the whole help before it.
    expect(result.stderr).toBe("prosec: unknown option `--frmat` (did you mean `--format`?)\n");
    expect(prosec(["build", "--focre", "fixtures"]).stderr).toBe(
      "prosec: unknown option `--focre` (did you mean `--force`?)\n",
    );
  });

  it("an option cut short gets the one it begins: --out is --out-dir", () => {
    const result = prosec(["build", "fixtures/session.prose", "--out", "build/x"]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toBe("prosec: unknown option `--out` (did you mean `--out-dir`?)\n");
  });

  it("--out-dir is named once, with its dashes, whatever is wrong with it", () => {
    for (const args of [["--out-dir"], ["--out-dir", "a", "--out-dir", "b"]]) {
      const result = prosec(["build", "fixtures/session.prose", ...args]);
      expect(result.status, args.join(" ")).toBe(EXIT.usage);
      const message = lastLine(result.stderr)!;
      expect(message.match(/out-?dir/gi), message).toHaveLength(1);
      expect(message).toMatch(/^prosec: --out-dir /);
    }
  });

  it("build --watch FILE is a watch of FILE, and --watch with --check is refused", () => {
    const refused = prosec(["build", "--watch", "--check", "fixtures/session.prose"]);
    expect(refused.status).toBe(EXIT.usage);
    expect(lastLine(refused.stderr)).toBe("prosec: --watch writes modules and --check writes none: use one of them");
    const missing = prosec(["build", "--watch", "no-such.prose"]);
    expect(missing.status).toBe(EXIT.usage);
    expect(lastLine(missing.stderr)).toBe("prosec: no-such.prose: no such file or folder");
  });
});

describe("--format json and --json", () => {
  it("are the same for check", () => {
    const folder = temporaryFolder("prosec-format-");
    writeFileSync(join(folder, "a.prose"), 'session "Hi {nobody}"\n');
    const long = prosec(["check", "--format", "json", "a.prose"], folder);
    const short = prosec(["check", "--json", "a.prose"], folder);
    expect(long.status).toBe(EXIT.ok);
    expect(JSON.parse(long.stdout)).toEqual({
      files: [{ file: "a.prose", diagnostics: [expect.objectContaining({ code: "P002" })] }],
    });
    expect(short.stdout).toBe(long.stdout);
  });

  it("are both options of every command with machine-readable output", () => {
    for (const command of ["check", "run", "status", "result", "runs", "test"]) {
      const help = prosec([command, "--help"]).stdout;
      expect(help, command).toMatch(/--format\s+output format/);
      expect(help, command).toMatch(/--json\s+the same as --format json/);
    }
  });
});

describe("usageMessage", () => {
  it("rewrites yargs' messages in prosec's words", () => {
    expect(usageMessage("Did you mean build?", ["biuld", "x"], [])).toBe(
      "unknown command `biuld` (did you mean `prosec build`?)",
    );
    expect(
      usageMessage(
        "Unknown arguments: frmat, stict",
        ["check", "--frmat=json", "--stict", "x"],
        ["help", "version", "format", "json", "strict", "h", "v"],
      ),
    ).toBe("unknown option `--frmat` (did you mean `--format`?); unknown option `--stict` (did you mean `--strict`?)");
    expect(usageMessage("Unknown argument: extra", ["migrate", "extra"], ["help"])).toBe("unexpected argument `extra`");
    // Known under another spelling: aliases, camel case, negation, short options grouped.
    expect(
      usageMessage(
        "Unknown argument: extra",
        ["run", "-i", "a=1", "--no-strict", "--outDir", "x", "-hv", "extra"],
        ["input", "i", "strict", "out-dir", "h", "v"],
      ),
    ).toBe("unexpected argument `extra`");
    expect(
      usageMessage("Not enough non-option arguments: got 0, need at least 1", ["build", "--focre", "x"], ["force"]),
    ).toBe("unknown option `--focre` (did you mean `--force`?)");
    expect(
      usageMessage("Unknown argument: out", ["build", "--out", "x"], ["out-dir", "outDir", "force", "format"]),
    ).toBe("unknown option `--out` (did you mean `--out-dir`?)");
    expect(usageMessage("Unknown argument: fo", ["build", "--fo"], ["force", "format"])).toBe("unknown option `--fo`");
    expect(usageMessage("Missing required argument: older-than", ["runs", "prune"], [])).toBe("missing --older-than");
    expect(usageMessage("Not enough arguments following: out-dir", [], [])).toBe("--out-dir needs a value");
    expect(usageMessage("Arguments out-dir, outDir and x are wrong", [], [])).toBe(
      "Arguments --out-dir and x are wrong",
    );
  });
});
