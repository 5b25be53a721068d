/**
 * A program registry served from the test itself, on 127.0.0.1: GET `/<handle>/<slug>` answers the
 * program's raw text. Tests change what it serves between fetches and read what it was asked.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRegistry {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Path → body (a string is sent as UTF-8); a path not here is a 404. */
  readonly programs: Map<string, string | Buffer>;
  /** Every request, in order. */
  readonly requests: Array<{ readonly path: string; readonly headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startFakeRegistry(programs: Record<string, string | Buffer>): Promise<FakeRegistry> {
  const served = new Map(Object.entries(programs));
  const requests: FakeRegistry["requests"] = [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push({ path, headers: request.headers });
    const body = served.get(path);
    if (body === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    programs: served,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
