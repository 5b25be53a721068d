/**
 * A repository can hold a link named like a program (`lib.prose`) that leads to `.env` or
 * `/proc/self/environ`. `prosec check` in CI would compile it, and a diagnostic's code frame would
 * print its lines into the log. A link is read only when it leads to a `.prose` file; a `use` of any
 * other link is P030, as a missing file is, and naming one on the command line is a usage error.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPrograms } from "../../src/cli/check-command.js";
import { compileClosure } from "../../src/run/compile-in-memory.js";
import { UsageError } from "../../src/errors.js";
import { temporaryFolder } from "../support/temp.js";

const SECRET = "sk-live-not-for-ci-logs-0123456789";

function project(): { cwd: string; outside: string } {
  const root = temporaryFolder("prosec-program-links-");
  const outside = join(root, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, ".env"), `API_TOKEN=${SECRET}\n`);
  writeFileSync(join(outside, "shared.prose"), 'output greeting = session "Hello"\n');
  const cwd = join(root, "project");
  mkdirSync(cwd);
  symlinkSync(join(outside, ".env"), join(cwd, "lib.prose"));
  symlinkSync(join(outside, "shared.prose"), join(cwd, "shared.prose"));
  writeFileSync(join(cwd, "main.prose"), 'use "./lib" as lib\n\noutput o = lib()\n');
  return { cwd, outside };
}

describe("a link named like a program", () => {
  it("to another kind of file is P030 at its `use`, its text never read", () => {
    const { cwd } = project();
    const [main] = checkPrograms(["main.prose"], { cwd });
    expect(main!.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(["P030"]);
    expect(JSON.stringify(main)).not.toContain(SECRET);
    const compiled = compileClosure("main.prose", cwd, {});
    expect(JSON.stringify([...compiled.values()])).not.toContain(SECRET);
  });

  it("to another kind of file is refused when named on the command line", () => {
    const { cwd } = project();
    expect(() => checkPrograms(["lib.prose"], { cwd })).toThrow(UsageError);
    expect(() => checkPrograms(["lib.prose"], { cwd })).toThrow(
      "lib.prose: a link to a file that is not a .prose file (such a link is never read)",
    );
  });

  it("to a .prose file is read as before", () => {
    const { cwd } = project();
    writeFileSync(join(cwd, "uses-shared.prose"), 'use "./shared" as shared\n\noutput o = shared()\n');
    const [main] = checkPrograms(["uses-shared.prose"], { cwd });
    expect(main!.diagnostics).toEqual([]);
  });
});
