/**
 * Paths in the way of what a command writes, as a newcomer's folder has them: a file where prosec
 * makes a folder (`.prose`, `tests`, the folder `examples copy` is given), an output whose folder does
 * not exist, a folder named as the output file. Each crashed as prosec's bug (`internal error: EEXIST`,
 * exit 3); each is now a usage error (exit 2) naming the path and what to change.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec, startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";

const PROGRAM = 'output answer = session "Say hello"\n';
let server: FakeServer;
let project = "";

beforeAll(async () => {
  server = await startFakeAnthropic({ respond: () => reply.text("hello") });
  project = temporaryFolder("prosec-in-the-way-");
  writeFileSync(join(project, "hello.prose"), PROGRAM);
  writeFileSync(join(project, "notes"), "a file\n");
  const ran = await startProsec(["run", "hello.prose"], project, { ANTHROPIC_BASE_URL: server.url }).exit;
  expect(ran.status, ran.stderr).toBe(EXIT.ok);
});

afterAll(async () => {
  await server.close();
});

function expectUsage(args: readonly string[], cwd: string, message: string): void {
  const result = prosec(args, cwd, { ANTHROPIC_BASE_URL: server.url });
  expect(result.status, result.stderr).toBe(EXIT.usage);
  expect(result.stderr.trimEnd().split("\n").at(-1)).toBe(`prosec: ${message}`);
  expect(result.stderr).not.toMatch(/internal error|bug in prosec/);
}

describe("a path in the way of what a command writes", () => {
  it("a file where prosec run makes .prose", () => {
    const cwd = temporaryFolder("prosec-in-the-way-run-");
    writeFileSync(join(cwd, "hello.prose"), PROGRAM);
    writeFileSync(join(cwd, ".prose"), "");
    expectUsage(
      ["run", "hello.prose"],
      cwd,
      ".prose is a file, not a folder: prosec makes a folder there; move the file away, then run the command again",
    );
    expect(server.requests.length).toBe(1); // the run of beforeAll's alone
  });

  it("a file named as the folder examples copy writes into", () => {
    expectUsage(
      ["examples", "copy", "01-hello-world", "notes"],
      project,
      "notes is a file, not a folder: prosec makes a folder there; move the file away, then run the command again",
    );
  });

  it("a file where test --save makes tests/", async () => {
    const cwd = temporaryFolder("prosec-in-the-way-save-");
    writeFileSync(join(cwd, "hello.prose"), PROGRAM);
    // Started, not run synchronously: the fake server answers from this process.
    const ran = await startProsec(["run", "hello.prose"], cwd, { ANTHROPIC_BASE_URL: server.url }).exit;
    expect(ran.status, ran.stderr).toBe(EXIT.ok);
    writeFileSync(join(cwd, "tests"), "");
    const [runId] = readdirSync(join(cwd, ".prose/runs"));
    expectUsage(
      ["test", "--save", runId!, "hello"],
      cwd,
      `${join(cwd, "tests")} is a file, not a folder: prosec makes a folder there; move the file away, then run the command again`,
    );
  });

  it("view --out into a folder that does not exist, through a file, or onto a folder", () => {
    expectUsage(
      ["view", "--out", "nowhere/report.html"],
      project,
      "nowhere/report.html: the folder nowhere does not exist (ENOENT): make it first, or name another",
    );
    expectUsage(
      ["view", "--out", "notes/report.html"],
      project,
      "notes/report.html: a part of this path is a file, not a folder (ENOTDIR): name another path, or move the file away",
    );
    expectUsage(["view", "--out", "."], project, "--out . is a folder: name the file to write (--out report.html)");
    expect(readdirSync(project).sort()).toEqual([".prose", "hello.prose", "notes"]);
  });
});
