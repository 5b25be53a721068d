/**
 * A registry package cannot make `prosec add`, `update`, `install` or `run <ref>` fetch from the
 * user's own network. What a fetched program `use`s, and what a committed prose.lock names, is
 * fetched only over https from a public address, unless the user named the host (PROSEC_REGISTRY,
 * a URL on the command line, PROSEC_TRUSTED_HOSTS). Each redirect hop is judged the same way, and a
 * name is judged by the addresses it resolves to. The "internal service" here is a real server on
 * loopback that counts every connection made to it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sha256 } from "../../src/project/imports.js";
import { RegistryError } from "../../src/registry/fetch-program.js";
import { addPrograms, installPrograms } from "../../src/registry/project.js";
import { cachedProgram } from "../../src/registry/run-cache.js";
import { trustedHostsSetting } from "../../src/registry/trusted-hosts.js";
import { temporaryFolder } from "../support/temp.js";

const program = 'output x = session "Hi"\n';

interface Served {
  readonly url: string;
  readonly host: string;
  /** Connections made to it, and the requests it answered (path and authorization). */
  connections: number;
  readonly requests: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** A server answering `routes` (a body, or `{ redirect }`), counting connections. */
async function serve(routes: () => Record<string, string | { redirect: string }>): Promise<Served> {
  const server: Server = createServer((request, response) => {
    served.requests.push({ path: request.url ?? "", authorization: request.headers.authorization });
    const route = routes()[request.url ?? ""];
    if (route === undefined) response.writeHead(404).end();
    else if (typeof route === "string") response.writeHead(200).end(route);
    else response.writeHead(302, { location: route.redirect }).end();
  });
  server.on("connection", () => served.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const served: Served = {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    connections: 0,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return served;
}

let inner: Served;
let registry: Served;
let folder: string;
beforeAll(async () => {
  inner = await serve(() => ({
    "/secret.prose": program,
    "/lib.prose": program,
    "/to-registry": { redirect: `${registry.url}/carol/news` },
  }));
  const innerPort = new URL(inner.url).port;
  registry = await serve(() => ({
    "/evil/loopback": `use "${inner.url}/secret.prose" as s\n\n${program}`,
    "/evil/localhost": `use "https://localhost:${innerPort}/secret.prose" as s\n\n${program}`,
    "/evil/metadata": `use "https://169.254.169.254/latest/meta-data" as s\n\n${program}`,
    "/evil/mapped": `use "https://[::ffff:127.0.0.1]:${innerPort}/secret.prose" as s\n\n${program}`,
    "/evil/hop": `use "${registry.url}/hop/inner" as s\n\n${program}`,
    "/hop/inner": { redirect: `${inner.url}/secret.prose` },
    "/hop/localhost": { redirect: `https://localhost:${innerPort}/secret.prose` },
    "/carol/news": program,
  }));
});
afterAll(async () => {
  await inner.close();
  await registry.close();
});
beforeEach(() => {
  folder = temporaryFolder("prosec-fetch-hosts-");
  inner.connections = 0;
  inner.requests.length = 0;
});

async function failure(action: Promise<unknown>): Promise<string> {
  const error = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RegistryError);
  return (error as Error).message;
}

describe("a program fetched from the registry", () => {
  it.each([
    ["an http URL on loopback", "evil/loopback", /secret\.prose: a host you did not name is fetched over https only/],
    ["a name that resolves to loopback", "evil/localhost", /localhost resolves to (127\.0\.0\.1|::1), a loopback/],
    ["the cloud metadata address", "evil/metadata", /169\.254\.169\.254\/latest\/meta-data: a loopback, private/],
    ["loopback spelt as IPv4 in IPv6", "evil/mapped", /\[::ffff:7f00:1\].*: a loopback, private or reserved address/],
    ["its registry's redirect to loopback", "evil/hop", /secret\.prose: a host you did not name is fetched over https/],
  ])("cannot make add fetch %s, and nothing is written", async (_, ref, reason) => {
    const message = await failure(addPrograms([ref], { cwd: folder, registry: registry.url }));
    expect(message).toMatch(/^refused to fetch /);
    expect(message).toMatch(reason);
    expect(message).toContain("PROSEC_TRUSTED_HOSTS=");
    expect(inner.connections).toBe(0);
    expect(readdirSync(folder)).toEqual([]);
  });

  it("cannot make prosec run <ref> fetch from loopback into the cache either", async () => {
    const previous = process.env["XDG_CACHE_HOME"];
    process.env["XDG_CACHE_HOME"] = folder;
    try {
      const fetching = cachedProgram("evil/loopback", {
        registry: registry.url,
        trustedHosts: [registry.host],
        offline: false,
      });
      expect(await failure(fetching)).toMatch(/^refused to fetch http:\/\/127\.0\.0\.1:\d+\/secret\.prose/);
      expect(inner.connections).toBe(0);
    } finally {
      if (previous === undefined) delete process.env["XDG_CACHE_HOME"];
      else process.env["XDG_CACHE_HOME"] = previous;
    }
  });

  it("is judged at each redirect hop: a named host's redirect to loopback is refused before connecting", async () => {
    const message = await failure(
      addPrograms([`${registry.url}/hop/localhost`], { cwd: folder, registry: "https://p.prose.md" }),
    );
    expect(message).toMatch(/localhost resolves to/);
    expect(inner.connections).toBe(0);
  });

  it("reaches a private host the user named: on the command line, or in PROSEC_TRUSTED_HOSTS", async () => {
    await addPrograms([`${inner.url}/lib.prose`], { cwd: folder, registry: registry.url });
    expect(inner.requests.map((request) => request.path)).toEqual(["/lib.prose"]);
    await addPrograms(["evil/loopback"], { cwd: folder, registry: registry.url, trustedHosts: [inner.host] });
    expect(inner.requests.map((request) => request.path)).toEqual(["/lib.prose", "/secret.prose"]);
  });

  it("reads PROSEC_TRUSTED_HOSTS as hosts, with or without a port, a URL as its host", () => {
    expect(trustedHostsSetting(" Prose.Internal, https://b.internal:8443/x  10.0.0.5:80,")).toEqual([
      "prose.internal",
      "b.internal:8443",
      "10.0.0.5:80",
    ]);
    expect(trustedHostsSetting(undefined)).toEqual([]);
  });

  it("sends the registry's token on no redirect to another host, nor on one from another host", async () => {
    await addPrograms(["evil/hop"], {
      cwd: folder,
      registry: registry.url,
      token: "registry-token",
      trustedHosts: ["127.0.0.1"],
    });
    expect(inner.requests).toEqual([{ path: "/secret.prose", authorization: undefined }]);
    registry.requests.length = 0;
    await addPrograms([`${inner.url}/to-registry`], {
      cwd: folder,
      registry: registry.url,
      token: "registry-token",
    });
    expect(registry.requests).toEqual([{ path: "/carol/news", authorization: undefined }]);
  });
});

describe("a committed prose.lock", () => {
  it("cannot point install at a private registry or URL the user did not name", async () => {
    const programs = {
      "carol/news": { url: `${inner.url}/lib.prose`, sha256: sha256(program), uses: [] },
    };
    writeFileSync(
      join(folder, "prose.lock"),
      `${JSON.stringify({ lockfileVersion: 1, registry: inner.url, programs })}\n`,
    );
    expect(await failure(installPrograms({ cwd: folder }))).toMatch(/^refused to fetch http:\/\/127\.0\.0\.1/);
    expect(await failure(addPrograms(["dave/x"], { cwd: folder }))).toMatch(/^refused to fetch http:\/\/127\.0\.0\.1/);
    expect(inner.connections).toBe(0);
    expect(existsSync(join(folder, "prose_modules"))).toBe(false);
    await installPrograms({ cwd: folder, registry: inner.url });
    expect(inner.requests.map((request) => request.path)).toEqual(["/lib.prose"]);
  });
});
