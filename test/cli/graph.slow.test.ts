import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { prosec } from "../support/cli.js";

const folder = mkdtempSync(join(tmpdir(), "prosec-graph-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("prosec graph", () => {
  const program = join(folder, "review.prose");
  writeFileSync(program, 'let draft = session "Draft it"\nif **it is good**:\n  session "Publish"\n');

  it("prints a Mermaid flowchart by default", () => {
    const result = prosec(["graph", program]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(EXIT.ok);
    expect(result.stdout).toMatch(/^flowchart TD\n/);
    // A judgment's bound counts the re-asks an unreadable answer may take (2 by default): 1 + 2 calls.
    expect(result.stdout).toContain('{"if **it is good**<br>≤ 3 calls"}');
    expect(result.stdout).toContain('n1(["program<br>critical path 5<br>≤ 5 calls"])');
  });

  it("writes DOT and SVG, to a file with --out", () => {
    expect(prosec(["graph", program, "--format", "dot"]).stdout).toMatch(/^digraph program \{\n/);
    const out = join(folder, "review.svg");
    const result = prosec(["graph", program, "--format", "svg", "--out", out]);
    expect(result.status).toBe(EXIT.ok);
    expect(result.stdout).toBe("");
    expect(readFileSync(out, "utf8")).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^]*<\/svg>\n$/);
  });

  it("reports a program's errors with their code frame, and writes nothing", () => {
    const broken = join(folder, "broken.prose");
    writeFileSync(broken, 'session "a"\nlet = 3\n');
    const out = join(folder, "broken.mmd");
    const result = prosec(["graph", broken, "--out", out]);
    expect(result.status).toBe(EXIT.failed);
    expect(result.stderr).toMatch(/broken\.prose:2:\d+ error E\d+/);
    expect(() => readFileSync(out)).toThrow();
  });

  it("rejects an unknown format and a missing file as usage errors", () => {
    expect(prosec(["graph", program, "--format", "png"]).status).toBe(EXIT.usage);
    const missing = prosec(["graph", join(folder, "nope.prose")]);
    expect(missing.status).toBe(EXIT.usage);
    expect(missing.stderr).toContain("no such file");
  });
});
