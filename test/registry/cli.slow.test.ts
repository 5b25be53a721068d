/**
 * `prosec add`, `install`, `update`, `check`/`build` and `prosec run <ref>` as a user runs them: the
 * built CLI in a child process, against a registry (and a Messages API) served from this test on
 * 127.0.0.1. Slow: a dozen processes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProsec, type CliResult } from "../support/cli.js";
import { deterministicModel } from "../support/deterministic-model.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { startFakeRegistry, type FakeRegistry } from "../support/fake-registry.js";
import { TEST_API_KEY } from "../runtime/helpers.js";
import { registryPrograms } from "./programs.js";
import { temporaryFolder } from "../support/temp.js";

const TOKEN = "registry-token-SECRET-42";
let registry: FakeRegistry;
let model: FakeServer;
let cache: string;
beforeAll(async () => {
  registry = await startFakeRegistry(registryPrograms);
  model = await startFakeAnthropic({ respond: deterministicModel() });
  cache = temporaryFolder("prosec-registry-cache-");
});
afterAll(async () => {
  await registry.close();
  await model.close();
});

function prosec(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return startProsec(args, cwd, {
    PROSEC_REGISTRY: registry.url,
    PROSEC_REGISTRY_TOKEN: TOKEN,
    XDG_CACHE_HOME: cache,
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    ...env,
  }).exit;
}

describe("prosec add, install --check, check and build", () => {
  // About twenty prosec processes one after another: over a minute on a loaded 2-core machine.
  it("vendors, verifies and builds a project; network failures exit 8 in one line", { timeout: 180_000 }, async () => {
    const folder = temporaryFolder("prosec-registry-cli-");
    writeFileSync(
      join(folder, "main.prose"),
      'use "alice/research" as research\n\noutput report = research(topic: "tides")\n',
    );
    const unpinned = await prosec(["check", "main.prose"], folder);
    expect(unpinned.status).toBe(1);
    expect(unpinned.stdout).toContain("help: fetch it once into the project with `prosec add alice/research`");

    const added = await prosec(["add", "@alice/research"], folder);
    expect(added.status).toBe(0);
    expect(added.stderr).toContain(`fetched alice/research from ${registry.url}/alice/research (sha256 `);
    expect(added.stderr).toContain(`fetched bob/search from ${registry.url}/bob/search (sha256 `);
    expect(added.stderr).toContain("prose.lock: 2 programs pinned (2 fetched, 0 already vendored)");
    expect(added.stdout + added.stderr).not.toContain(TOKEN);

    expect((await prosec(["install", "--check"], folder)).status).toBe(0);
    expect((await prosec(["check", "."], folder)).stdout).toContain("3 files checked: 0 errors, 0 warnings");
    const built = await prosec(["build", "main.prose", "--out-dir", "gen", "--typecheck"], folder);
    expect(built.stdout).toContain("3 programs: 3 written, 0 unchanged");
    expect(built.status).toBe(0);

    const lock = readFileSync(join(folder, "prose.lock"), "utf8");
    const missing = await prosec(["add", "carol/news", "dave/missing"], folder);
    expect(missing.status).toBe(8);
    expect(missing.stderr.split("\n").slice(-2)).toEqual([
      `prosec: cannot fetch ${registry.url}/dave/missing: HTTP 404 Not Found`,
      "",
    ]);
    expect(readFileSync(join(folder, "prose.lock"), "utf8")).toBe(lock);
    expect((await prosec(["add", "./local.prose"], folder)).status).toBe(2);

    writeFileSync(join(folder, "prose_modules/bob/search.prose"), 'session "edited"\n');
    const drifted = await prosec(["install", "--check"], folder);
    expect(drifted.status).toBe(1);
    expect(drifted.stdout).toContain(
      "bob/search: prose_modules/bob/search.prose differs from the SHA-256 in prose.lock",
    );
    expect((await prosec(["install"], folder)).stderr).toContain("restored 1 program");
    expect((await prosec(["install", "--check"], folder)).status).toBe(0);
    expect((await prosec(["update", "alice/research"], folder)).stderr).toContain("2 programs refreshed, 0 changed");
  });
});

describe("prosec install with upstream OpenProse's plaintext prose.lock", () => {
  it("fails with P042 and a hint, not a JSON parser's message, and leaves the file as it was", async () => {
    const folder = temporaryFolder("prosec-registry-upstream-");
    const upstream = "github.com/alice/tools 3f2a9c1d0b7e4a5f6c8d9e0a1b2c3d4e5f6a7b8c\n";
    writeFileSync(join(folder, "prose.lock"), upstream);
    for (const args of [["install"], ["add", "alice/research"]]) {
      const result = await prosec(args, folder);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        "prosec: error P042 prose.lock is OpenProse's git-native lockfile (`host/owner/repo sha` lines), which prosec does not read\n  help: prosec pins registry references",
      );
      expect(result.stderr).not.toContain("not valid JSON");
    }
    expect(readFileSync(join(folder, "prose.lock"), "utf8")).toBe(upstream);
  });
});

describe("prosec run <ref>", () => {
  it("fetches into the cache, shows the permissions, needs --yes off a terminal the first time, then runs offline", async () => {
    const folder = temporaryFolder("prosec-registry-run-");
    const refused = await prosec(["run", "alice/research", "-i", "topic=tides"], folder);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`fetched alice/research from ${registry.url}/alice/research`);
    expect(refused.stderr).toContain(
      'alice/research asks for these permissions:\n  bob/search: agent searcher: read ["*.md"]\n',
    );
    expect(refused.stderr).toContain("alice/research has not been run here before");
    expect(model.requests).toHaveLength(0);

    const ran = await prosec(["run", "alice/research", "--yes", "-i", "topic=tides"], folder);
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain("summary");
    expect(model.requests.length).toBeGreaterThan(0);

    // Approved once: no --yes needed, and with --offline the registry is never asked.
    const asked = registry.requests.length;
    const offline = await prosec(["run", "@alice/research", "--offline", "-i", "topic=winds"], folder);
    expect(offline.status).toBe(0);
    expect(offline.stderr).toContain("using alice/research from the cache");
    expect(registry.requests.length).toBe(asked);

    const notCached = await prosec(["run", "carol/news", "--offline"], folder);
    expect(notCached.status).toBe(8);
    expect(notCached.stderr).toContain("carol/news is not in the cache");
    const gone = await prosec(["run", "dave/missing", "--yes"], folder);
    expect(gone.status).toBe(8);
    expect(gone.stderr).toBe(`prosec: cannot fetch ${registry.url}/dave/missing: HTTP 404 Not Found\n`);
  });

  it("runs a local file of that name rather than the registry's program", async () => {
    const folder = temporaryFolder("prosec-registry-local-");
    mkdirSync(join(folder, "alice"));
    writeFileSync(join(folder, "alice/research"), 'output local = session "Local research"\n');
    const asked = registry.requests.length;
    const ran = await prosec(["run", "alice/research"], folder);
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain("local");
    expect(registry.requests.length).toBe(asked);
  });

  it("says a mistyped program path ending in .prose is no such file, and never asks the registry", async () => {
    const folder = temporaryFolder("prosec-registry-typo-");
    mkdirSync(join(folder, "src"));
    writeFileSync(join(folder, "src/review.prose"), 'output local = session "Review"\n');
    const asked = registry.requests.length;
    const typo = await prosec(["run", "src/reveiw.prose"], folder);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe("prosec: src/reveiw.prose: no such file\n");
    expect(registry.requests.length).toBe(asked);
  });
});
