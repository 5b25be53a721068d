/**
 * A stdio MCP server's stderr as the log and the trace get it (runtime/tools/mcp/stderr-lines.ts):
 * whole lines whatever pieces the pipe cut, a line that never ends passed on in pieces that keep its
 * tail back, and no more than the limit.
 */
import { describe, expect, it } from "vitest";
import { StderrLines } from "../../runtime/tools/mcp/stderr-lines.js";

function collect(limit?: number): { lines: StderrLines; emitted: string[] } {
  const emitted: string[] = [];
  return { lines: new StderrLines((text) => emitted.push(text), limit), emitted };
}

describe("an MCP server's stderr", () => {
  it("is passed on in whole lines, however the pipe cut it", () => {
    const { lines, emitted } = collect();
    lines.push("the token is sk-ant-");
    lines.push("0123456789\nnext");
    lines.push(" line\nlast, unended");
    expect(emitted).toEqual(["the token is sk-ant-0123456789\n", "next line\n"]);
    lines.end();
    expect(emitted.at(-1)).toBe("last, unended");
  });

  it("a line that never ends is passed on in pieces, its last 4 KB held for the next", () => {
    const { lines, emitted } = collect();
    const long = "x".repeat(100_000);
    lines.push(long);
    expect(emitted).toEqual([long.slice(0, 100_000 - 4096)]);
    lines.end();
    expect(emitted.join("")).toBe(long);
  });

  it("keeps no more than its limit, and says so once", () => {
    const { lines, emitted } = collect(10);
    lines.push("12345\n");
    lines.push("67890123\n");
    lines.push("more\n");
    lines.end();
    expect(emitted).toEqual(["12345\n", "[prosec: this server's stderr passed 10 characters; the rest is not kept]\n"]);
  });
});
