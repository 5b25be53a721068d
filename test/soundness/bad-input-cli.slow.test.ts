/**
 * Bad input through the CLI (issue 14): bytes that are not UTF-8, binary files, things that are not
 * files, a closed output pipe, and `check` agreeing with `build`. (bad-input.test.ts: in process.)
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../support/temp.js";

const bin = new URL("../../bin/prosec", import.meta.url).pathname;
const folder = temporaryFolder("prosec-bad-input-");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return name;
}

describe("bytes that are not a program", () => {
  it("invalid UTF-8 is an error at its line and column, with a code frame", () => {
    file(
      "latin1.prose",
      Buffer.concat([Buffer.from('let a = "ok"\nlet b = "caf'), Buffer.from([0xe9]), Buffer.from(' au lait"\n')]),
    );
    const result = prosec(["check", "latin1.prose"], folder);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("latin1.prose:2:13 error P020 not valid UTF-8 at 2:13");
    expect(result.stdout).toContain('> 2 | let b = "caf');
  });

  it("a binary file is an error that never prints its bytes", () => {
    file("image.prose", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0a, 0x00, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0x00, 0xff]));
    for (const format of ["text", "json"]) {
      const result = prosec(["check", "--format", format, "image.prose"], folder);
      expect(result.status).toBe(1);
      expect(result.stdout).toContain("binary file");
      expect(result.stdout).not.toMatch(/[\u0000\u001b\ufffd]/);
    }
    expect(prosec(["build", "image.prose"], folder).stdout).toContain("P021");
  });

  it("a fifo, a device or a folder named as a program is refused at once (usage), never read", () => {
    execFileSync("mkfifo", [join(folder, "pipe.prose")]);
    for (const command of [["check"], ["build"], ["run"]]) {
      const result = prosec([...command, "pipe.prose"], folder);
      expect(result.status, command.join(" ")).toBe(2);
      expect(result.stderr).toContain("pipe.prose: not a regular file");
    }
    expect(prosec(["check", "/dev/null"], folder).stderr).toContain("not a regular file");
    mkdirSync(join(folder, "folder.prose"), { recursive: true });
    const run = prosec(["run", "folder.prose"], folder);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("folder.prose: is a folder");
  });

  it("a `use` of a fifo or a folder is P030 at the `use`, never a read that blocks or an internal error", () => {
    execFileSync("mkfifo", [join(folder, "piped.prose")]);
    mkdirSync(join(folder, "shelf.prose"), { recursive: true });
    file("uses-pipe.prose", 'use "./piped.prose" as piped\noutput o = piped()\n');
    file("uses-shelf.prose", 'use "./shelf" as shelf\noutput o = shelf()\n');
    for (const program of ["uses-pipe.prose", "uses-shelf.prose"])
      for (const command of ["check", "build", "cost", "run"]) {
        // A read of the fifo would block for ever: the timeout turns that into a failure, not a hang.
        const result = spawnSync(process.execPath, [bin, command, program], {
          cwd: folder,
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1", ANTHROPIC_API_KEY: "unused" },
          timeout: 30_000,
        });
        const what = `${command} ${program}: ${result.stderr}`;
        expect(result.signal, what).toBeNull();
        expect(result.stderr, what).not.toContain("internal error");
        expect(result.status, what).toBe(1);
        // `cost` reports on stderr, the others on stdout.
        expect(result.stdout + result.stderr, what).toContain(
          `${program}:1:5 error P030 cannot read the imported program`,
        );
      }
  });
});

describe("a closed output pipe", () => {
  it("ends `check --format json` quietly (no stack trace), with the interrupted exit code", async () => {
    // Far more output than a pipe holds, so the writer is still writing when the reader leaves.
    file("noisy.prose", Array.from({ length: 4000 }, (_, index) => `let y${index} = missing`).join("\n"));
    const child = spawn(process.execPath, [bin, "check", "--format", "json", "noisy.prose"], {
      cwd: folder,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Like `| head -c 1`: read one chunk, then close the pipe.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(130);
  });
});

describe("check reports what build reports", () => {
  it("a program call with a missing or unknown input is E026 / E027 in both", () => {
    file("helper.prose", 'input topic: "t"\noutput o = session "x {topic}"\n');
    file("caller.prose", 'use "./helper.prose" as helper\nlet r = helper(subject: "x")\n');
    const check = prosec(["check", "caller.prose"], folder);
    const build = prosec(["build", "caller.prose"], folder);
    const codes = (output: string) => [...output.matchAll(/^\S+ error (\w+) .*$/gm)].map((match) => match[0]);
    expect(check.status).toBe(1);
    expect(build.status).toBe(1);
    expect(codes(check.stdout)).toEqual([
      "caller.prose:2:9 error E026 program `helper` needs input `topic`",
      "caller.prose:2:16 error E027 program `helper` has no input `subject`",
    ]);
    expect(codes(build.stdout)).toEqual(codes(check.stdout));
  });

  it("a missing imported program is the same error in both", () => {
    file("orphan.prose", 'use "./nowhere.prose" as gone\nlet r = gone()\n');
    expect(prosec(["check", "orphan.prose"], folder).stdout).toContain("P030");
    expect(prosec(["build", "orphan.prose"], folder).stdout).toContain("P030");
  });
});
