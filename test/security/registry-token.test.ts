/**
 * `PROSEC_REGISTRY_TOKEN` goes to the registry the user chose (`PROSEC_REGISTRY`, else the default
 * one), never to a registry that only `prose.lock` names: the lockfile is committed, and a pull
 * request that points its `registry` at a server of its own must not collect the token from CI.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sha256 } from "../../src/project/imports.js";
import { RegistryError } from "../../src/registry/fetch-program.js";
import { addPrograms, installPrograms } from "../../src/registry/project.js";
import { registryToken } from "../../src/registry/registry-token.js";
import { DEFAULT_REGISTRY } from "../../src/references.js";
import { news } from "../registry/programs.js";
import { startFakeRegistry, type FakeRegistry } from "../support/fake-registry.js";
import { temporaryFolder } from "../support/temp.js";

const TOKEN = "registry-token-for-p.prose.md-only";

let evil: FakeRegistry | undefined;
afterEach(async () => {
  await evil?.close();
  evil = undefined;
});

/** A project whose prose.lock names `registry` and pins carol/news there. */
function projectOn(registry: string): string {
  const cwd = temporaryFolder("prosec-registry-token-");
  const programs = { "carol/news": { url: `${registry}/carol/news`, sha256: sha256(news(1)), uses: [] } };
  writeFileSync(join(cwd, "prose.lock"), `${JSON.stringify({ lockfileVersion: 1, registry, programs })}\n`);
  return cwd;
}

describe("a prose.lock that names another registry", () => {
  it("gets no token from install or add when PROSEC_REGISTRY is not set", async () => {
    evil = await startFakeRegistry({ "/carol/news": news(1), "/dave/other": news(2) });
    const cwd = projectOn(evil.url);
    // Trusted to be fetched from (PROSEC_TRUSTED_HOSTS: it is on loopback), not chosen as the registry.
    const trustedHosts = [new URL(evil.url).host];
    await installPrograms({ cwd, token: TOKEN, trustedHosts });
    await addPrograms(["dave/other"], { cwd, token: TOKEN, trustedHosts });
    expect(evil.requests.map((request) => request.path)).toEqual(["/carol/news", "/dave/other"]);
    expect(evil.requests.map((request) => request.headers.authorization)).toEqual([undefined, undefined]);
  });

  it("gets the token when PROSEC_REGISTRY names it", async () => {
    evil = await startFakeRegistry({ "/carol/news": news(1) });
    await installPrograms({ cwd: projectOn(evil.url), registry: evil.url, token: TOKEN });
    expect(evil.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it("says why no token was sent when the registry asks for one", async () => {
    const server = createServer((_, response) => response.writeHead(401).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const trustedHosts = [new URL(url).host];
      const failure = await installPrograms({ cwd: projectOn(url), token: TOKEN, trustedHosts }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(RegistryError);
      expect((failure as Error).message).toContain(
        `HTTP 401 Unauthorized (PROSEC_REGISTRY_TOKEN goes only to PROSEC_REGISTRY, else ${DEFAULT_REGISTRY}, not to a registry only prose.lock names: set PROSEC_REGISTRY=${url} if you trust it)`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("registryToken, as prosec run <ref> uses it", () => {
  it("gives the token to the chosen registry or the default one only", () => {
    expect(registryToken(DEFAULT_REGISTRY, undefined, TOKEN)).toEqual({ token: TOKEN });
    expect(registryToken("https://corp.example/r", "https://corp.example/r/", TOKEN)).toEqual({ token: TOKEN });
    expect(registryToken("https://evil.example", undefined, TOKEN).token).toBeUndefined();
    expect(registryToken("https://evil.example", "https://corp.example", TOKEN).token).toBeUndefined();
    expect(registryToken("https://evil.example", undefined, undefined)).toEqual({});
  });
});
