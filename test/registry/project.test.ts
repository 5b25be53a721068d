import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RegistryError } from "../../src/registry/fetch-program.js";
import { isGitNativeLockfile, LockfileError } from "../../src/project/lockfile.js";
import { addPrograms, installPrograms, updatePrograms, verifyInstalled } from "../../src/registry/project.js";
import { sha256 } from "../../src/project/imports.js";
import { refKey, refUrl, vendoredPath } from "../../src/references.js";
import { startFakeRegistry, type FakeRegistry } from "../support/fake-registry.js";
import { news, registryPrograms, research, search } from "./programs.js";
import { temporaryFolder } from "../support/temp.js";

let registry: FakeRegistry;
let folder: string;
beforeAll(async () => {
  registry = await startFakeRegistry(registryPrograms);
});
afterAll(() => registry.close());
beforeEach(() => {
  folder = temporaryFolder("prosec-registry-");
  registry.programs.set("/carol/news", news(1));
  registry.requests.length = 0;
});

const options = () => ({ cwd: folder, registry: registry.url });
const lockfile = () => JSON.parse(readFileSync(join(folder, "prose.lock"), "utf8")) as Record<string, unknown>;

/** Every file under the project with its bytes, to compare a folder before and after. */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else files[relative(root, child)] = readFileSync(child, "base64");
    }
  };
  walk(root);
  return files;
}

describe("references", () => {
  it("treats @alice/research and alice/research as one reference, and maps URLs under prose_modules/-/", () => {
    expect(refKey("@alice/research")).toBe("alice/research");
    expect(refUrl("alice/research", "https://p.prose.md/")).toBe("https://p.prose.md/alice/research");
    expect(vendoredPath("alice/research")).toBe("alice/research.prose");
    expect(vendoredPath("http://127.0.0.1:8080/lib/x.prose")).toBe("-/127.0.0.1_8080/lib/x.prose");
    expect(vendoredPath("https://example.com/a/../../etc/passwd")).toBe("-/example.com/etc/passwd.prose");
  });
});

describe("prosec add", () => {
  it("fetches a program and the programs it uses into prose_modules/ and pins them in prose.lock", async () => {
    const added = await addPrograms(["@alice/research"], options());
    expect(added.map((program) => program.key)).toEqual(["alice/research", "bob/search"]);
    expect(readFileSync(join(folder, "prose_modules/alice/research.prose"), "utf8")).toBe(research);
    expect(readFileSync(join(folder, "prose_modules/bob/search.prose"), "utf8")).toBe(search);
    expect(lockfile()).toEqual({
      lockfileVersion: 1,
      registry: registry.url,
      programs: {
        "alice/research": { url: `${registry.url}/alice/research`, sha256: sha256(research), uses: ["bob/search"] },
        "bob/search": { url: `${registry.url}/bob/search`, sha256: sha256(search), uses: [] },
      },
    });
    expect(readFileSync(join(folder, "prose.lock"), "utf8")).toMatch(/^\{\n {2}"lockfileVersion": 1,\n/);
  });

  it("adds the same program once under either spelling, keeping what is pinned intact", async () => {
    await addPrograms(["alice/research"], options());
    const before = readFileSync(join(folder, "prose.lock"), "utf8");
    registry.requests.length = 0;
    const again = await addPrograms(["@alice/research"], options());
    expect(readFileSync(join(folder, "prose.lock"), "utf8")).toBe(before);
    // The named program is fetched again; what it uses is pinned and vendored intact, so it is not.
    expect(registry.requests.map((request) => request.path)).toEqual(["/alice/research"]);
    expect(again.find((program) => program.key === "bob/search")?.fetched).toBe(false);
  });

  it("pins URLs by URL", async () => {
    const url = `${registry.url}/carol/news`;
    await addPrograms([url], options());
    expect(
      readFileSync(join(folder, "prose_modules/-/127.0.0.1_" + new URL(url).port + "/carol/news.prose"), "utf8"),
    ).toBe(news(1));
    expect(lockfile()).toMatchObject({ programs: { [url]: { url, sha256: sha256(news(1)), uses: [] } } });
  });

  it("leaves prose.lock and prose_modules/ exactly as they were when any fetch fails", async () => {
    await addPrograms(["alice/research"], options());
    const before = snapshot(folder);
    await expect(addPrograms(["carol/news", "x/broken"], options())).rejects.toThrow(
      `cannot fetch ${registry.url}/zed/absent: HTTP 404 Not Found`,
    );
    expect(snapshot(folder)).toEqual(before);
  });

  it("says in one line why a program cannot be fetched", async () => {
    const failure = async (ref: string, base = registry.url) => {
      const error = await addPrograms([ref], { cwd: folder, registry: base }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RegistryError);
      const message = (error as Error).message;
      expect(message).not.toContain("\n");
      return message;
    };
    expect(await failure("dave/missing")).toBe(`cannot fetch ${registry.url}/dave/missing: HTTP 404 Not Found`);
    expect(await failure("eve/binary")).toBe(
      `${registry.url}/eve/binary is not a program: its bytes are not UTF-8 text`,
    );
    expect(await failure("eve/huge")).toBe(`${registry.url}/eve/huge is too large for a program (more than 1 MB)`);
    expect(await failure("eve/page")).toMatch(new RegExp(`^${registry.url}/eve/page is not a program: line 1: `));
    const closed = await startFakeRegistry({});
    await closed.close();
    expect(await failure("alice/research", closed.url)).toBe(`cannot fetch ${closed.url}/alice/research: ECONNREFUSED`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it("sends PROSEC_REGISTRY_TOKEN as a bearer token to the registry only, and never writes it", async () => {
    const token = "secret-token-1234";
    const elsewhere = await startFakeRegistry({ "/lib/x.prose": 'session "Hi"\n' });
    try {
      await addPrograms(["alice/research", `${elsewhere.url}/lib/x.prose`], { ...options(), token });
      expect(registry.requests.map((request) => request.headers.authorization)).toEqual([
        `Bearer ${token}`,
        `Bearer ${token}`,
      ]);
      expect(elsewhere.requests.map((request) => request.headers.authorization)).toEqual([undefined]);
      for (const content of Object.values(snapshot(folder)))
        expect(Buffer.from(content, "base64").toString("utf8")).not.toContain(token);
    } finally {
      await elsewhere.close();
    }
  });
});

describe("prosec install and update", () => {
  it("restores missing or damaged vendored copies from the lockfile, and --check reports disagreement", async () => {
    await addPrograms(["alice/research"], options());
    expect(verifyInstalled(folder)).toEqual([]);
    rmSync(join(folder, "prose_modules/bob/search.prose"));
    writeFileSync(join(folder, "prose_modules/alice/research.prose"), research + "# edited\n");
    writeFileSync(join(folder, "prose_modules/stray.prose"), 'session "Hi"\n');
    expect(verifyInstalled(folder)).toEqual([
      "alice/research: prose_modules/alice/research.prose differs from the SHA-256 in prose.lock",
      "bob/search: prose_modules/bob/search.prose is missing",
      "prose_modules/stray.prose is not in prose.lock",
    ]);
    rmSync(join(folder, "prose_modules/stray.prose"));
    const restored = await installPrograms(options());
    expect(restored.map((program) => program.key)).toEqual(["alice/research", "bob/search"]);
    expect(verifyInstalled(folder)).toEqual([]);
    expect(await installPrograms(options())).toEqual([]);
  });

  it("refuses to install a program whose registry text changed since it was pinned; update takes it", async () => {
    await addPrograms(["carol/news"], options());
    registry.programs.set("/carol/news", news(2));
    rmSync(join(folder, "prose_modules/carol/news.prose"));
    const before = snapshot(folder);
    await expect(installPrograms(options())).rejects.toThrow(
      /now serves another text than prose\.lock pins for carol\/news/,
    );
    expect(snapshot(folder)).toEqual(before);
    await updatePrograms(["carol/news"], options());
    expect(readFileSync(join(folder, "prose_modules/carol/news.prose"), "utf8")).toBe(news(2));
    expect(lockfile()).toMatchObject({ programs: { "carol/news": { sha256: sha256(news(2)) } } });
  });

  it("update with no reference fetches every pinned program again; an unpinned one is an error", async () => {
    await addPrograms(["carol/news", "alice/research"], options());
    registry.programs.set("/carol/news", news(3));
    registry.requests.length = 0;
    await updatePrograms([], options());
    expect(registry.requests.map((request) => request.path).sort()).toEqual([
      "/alice/research",
      "/bob/search",
      "/carol/news",
    ]);
    expect(lockfile()).toMatchObject({ programs: { "carol/news": { sha256: sha256(news(3)) } } });
    await expect(updatePrograms(["dave/other"], options())).rejects.toThrow(
      "dave/other is not in prose.lock: add it with `prosec add dave/other`",
    );
  });
});

describe("upstream OpenProse's plaintext prose.lock (git-native `use`)", () => {
  const upstream =
    "# OpenProse lockfile\ngithub.com/alice/tools 3f2a9c1d0b7e4a5f6c8d9e0a1b2c3d4e5f6a7b8c\ngitlab.com/bob/prose/sub 9e8d7c6\n";

  it("is recognised, and only it: JSON, an empty file and prose are not", () => {
    expect(isGitNativeLockfile(upstream)).toBe(true);
    expect(isGitNativeLockfile('{ "lockfileVersion": 1 }')).toBe(false);
    expect(isGitNativeLockfile("")).toBe(false);
    expect(isGitNativeLockfile("github.com/alice/tools is where it lives\n")).toBe(false);
  });

  it("makes add, install and update fail with P042 and a hint, and is never overwritten", async () => {
    writeFileSync(join(folder, "prose.lock"), upstream);
    for (const action of [
      () => installPrograms(options()),
      () => addPrograms(["alice/research"], options()),
      () => updatePrograms([], options()),
    ]) {
      const failure = await action().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(LockfileError);
      expect(failure).toMatchObject({
        code: "P042",
        message:
          "prose.lock is OpenProse's git-native lockfile (`host/owner/repo sha` lines), which prosec does not read",
        hint: expect.stringContaining('git-native `use "github.com/..."` is not supported'),
      });
      expect((failure as Error).message).not.toContain("JSON");
    }
    expect(verifyInstalled.bind(undefined, folder)).toThrow(LockfileError);
    expect(readFileSync(join(folder, "prose.lock"), "utf8")).toBe(upstream);
    expect(registry.requests).toEqual([]);
  });
});
