/** `prosec examples`: the bundled OpenProse programs, listed, shown and copied. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { corpusDirectory, corpusPrograms } from "../support/corpus.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

describe("prosec examples", () => {
  it("lists every bundled example, one a line: its name and the first line of its opening comment", () => {
    const result = prosec(["examples"]);
    expect(result.status).toBe(EXIT.ok);
    const lines = result.stdout.split("\n").filter((line) => /^\d\d-/.test(line));
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(
      corpusPrograms.map((program) => program.name.replace(/\.prose$/, "")),
    );
    expect(lines).toContain(lines.find((line) => line.startsWith("28-gas-town ")));
    expect(lines.find((line) => line.startsWith("28-gas-town "))).toMatch(
      / {2}Gas Town: Multi-Agent Orchestration System$/,
    );
    expect(result.stdout).toMatch(/^50 examples: /m);
  });

  it("shows one by its name, its name without the number, or its number", () => {
    const expected = readFileSync(join(corpusDirectory, "13-variables-and-context.prose"), "utf8");
    for (const name of ["13-variables-and-context", "13-variables-and-context.prose", "variables-and-context", "13"]) {
      const result = prosec(["examples", "show", name]);
      expect(result.status, name).toBe(EXIT.ok);
      expect(result.stdout, name).toBe(expected);
    }
  });

  it("an unknown name is a usage error with the closest one", () => {
    const result = prosec(["examples", "show", "helo-world"]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr.trimEnd().split("\n").pop()).toBe(
      "prosec: no example `helo-world` (did you mean `hello-world`?): `prosec examples` lists them",
    );
  });

  it("copies one into a folder (made if needed), never over an existing file", () => {
    const folder = temporaryFolder("prosec-examples-");
    const copied = prosec(["examples", "copy", "hello-world", "start/here"], folder);
    expect(copied.status).toBe(EXIT.ok);
    expect(copied.stdout).toBe(
      "wrote start/here/01-hello-world.prose\nnext: prosec run start/here/01-hello-world.prose\n",
    );
    expect(readFileSync(join(folder, "start/here/01-hello-world.prose"), "utf8")).toBe(
      readFileSync(join(corpusDirectory, "01-hello-world.prose"), "utf8"),
    );

    writeFileSync(join(folder, "01-hello-world.prose"), "mine\n");
    const refused = prosec(["examples", "copy", "1"], folder);
    expect(refused.status).toBe(EXIT.usage);
    expect(refused.stderr).toContain("01-hello-world.prose already exists");
    expect(readFileSync(join(folder, "01-hello-world.prose"), "utf8")).toBe("mine\n");
    expect(readdirSync(folder).sort()).toEqual(["01-hello-world.prose", "start"]);
    expect(existsSync(join(folder, ".prose"))).toBe(false);
  });
});
