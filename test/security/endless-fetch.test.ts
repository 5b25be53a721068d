/**
 * `fetch_url` against servers that never finish: one that drips a byte at a time (each below the idle
 * timeout, so only an overall deadline ends the call) and one whose redirect body never ends (drained,
 * it would keep the connection and the process alive after the run). Real HTTP servers on 127.0.0.1,
 * the real SDK client and runtime; the run must go on with a readable tool error.
 */
import { rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { fetchUrlTool } from "../../runtime/tools/builtin.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst, temporaryFolder } from "../runtime/helpers.js";

const servers: Server[] = [];
const folders: string[] = [];
const timers: NodeJS.Timeout[] = [];
let model: FakeServer | undefined;
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await model?.close();
  model = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function serve(handler: (path: string, response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => handler(request.url ?? "/", response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes one byte every `everyMs` until the client goes away. */
function drip(response: ServerResponse, everyMs: number): Promise<void> {
  response.writeHead(200, { "content-type": "text/plain" });
  const timer = setInterval(() => response.write("x"), everyMs);
  timers.push(timer);
  return new Promise((resolve) => response.on("close", () => (clearInterval(timer), resolve())));
}

describe("fetch_url against a server that never finishes", () => {
  it("a body dripping a byte at a time ends at the overall deadline; the run goes on", async () => {
    let closed: Promise<void> | undefined;
    const base = await serve((_path, response) => void (closed = drip(response, 100)));
    model = await startFakeAnthropic({
      script: [reply.toolUse([{ name: "fetch_url", input: { url: `${base}/slow` } }]), reply.text("went on")],
    });
    const started = Date.now();
    const cwd = temporaryFolder();
    folders.push(cwd);
    const { result } = await runAgainst(
      model,
      (rt) => rt.session({ at: at(1), prompt: "Fetch it", permissions: { network: ["127.0.0.1"] } }),
      { cwd, fetchTimeoutMs: 800 },
    );
    expect(result).toBe("went on");
    expect(Date.now() - started).toBeLessThan(20_000);
    const toolResult = JSON.stringify(model.requests[1]!.body?.messages.at(-1));
    expect(toolResult).toContain("did not finish within 0.8 s (RunOptions.fetchTimeoutMs)");
    expect(toolResult).toContain('"is_error":true');
    await closed;
  });

  it("a redirect whose body never ends is not drained: its connection is closed at once", async () => {
    let redirectClosed: Promise<void> | undefined;
    const base = await serve((path, response) => {
      if (path === "/ok") return void response.end("the page");
      response.writeHead(302, { location: "/ok" });
      const timer = setInterval(() => response.write("y".repeat(1024)), 20);
      timers.push(timer);
      redirectClosed = new Promise((resolve) => response.on("close", () => (clearInterval(timer), resolve())));
    });
    const cwd = temporaryFolder();
    folders.push(cwd);
    const guard = new PermissionGuard(cwd, { network: ["127.0.0.1"] }, undefined, undefined, {
      fetchTimeoutMs: 60_000,
    });
    const page = await fetchUrlTool.run(
      { url: `${base}/redirect` },
      { cwd, signal: new AbortController().signal, permissions: guard },
    );
    expect(page).toContain("the page");
    const gone = await Promise.race([
      redirectClosed!.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000)),
    ]);
    expect(gone).toBe(true);
  });
});
