import { afterEach } from "vitest";
import { startFakeAnthropic, type FakeServer, type Responder } from "./fake-anthropic.js";

/**
 * A test file's way to start fake Messages API servers: `serve(respond)` starts one, and every server
 * started during a test is closed after it, also when the test fails. Call it at a file's top level.
 */
export function fakeServersPerTest(): (respond: Responder) => Promise<FakeServer> {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (respond) => {
    const server = await startFakeAnthropic({ respond });
    servers.push(server);
    return server;
  };
}
