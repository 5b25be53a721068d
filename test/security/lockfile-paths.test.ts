/**
 * A `prose.lock` from a hostile pull request cannot make `prosec install` or `update` write outside
 * `prose_modules/`: every key, and every key a program `uses`, must be a registry reference or a URL,
 * which `vendoredPath` keeps inside the folder. The tampered lockfile pins the very bytes the
 * registry serves, so the hash check alone would let the write through.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockfileError } from "../../src/project/lockfile.js";
import { sha256 } from "../../src/project/imports.js";
import { addPrograms, installPrograms, updatePrograms, verifyInstalled } from "../../src/registry/project.js";
import { UsageError } from "../../src/errors.js";
import { news } from "../registry/programs.js";
import { startFakeRegistry, type FakeRegistry } from "../support/fake-registry.js";
import { temporaryFolder } from "../support/temp.js";

let registry: FakeRegistry;
beforeAll(async () => {
  registry = await startFakeRegistry({ "/carol/news": news(1) });
});
afterAll(() => registry.close());

/** The entry the registry serves, pinned by its true hash. */
const pinned = (uses: string[] = []) => ({ url: `${registry.url}/carol/news`, sha256: sha256(news(1)), uses });

/** A project two folders down, so that a key climbing out of it lands in a folder the test owns. */
function projectWith(programs: Record<string, unknown>): { project: string; outside: string } {
  const outside = join(temporaryFolder("prosec-lock-paths-"), "a");
  const project = join(outside, "project");
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "prose.lock"),
    `${JSON.stringify({ lockfileVersion: 1, registry: registry.url, programs }, null, 2)}\n`,
  );
  return { project, outside };
}

describe("a tampered prose.lock", () => {
  it.each([
    ["a key that climbs out of prose_modules/", () => ({ "../../escaped": pinned() })],
    ["a key with an empty segment", () => ({ "carol//../../../escaped": pinned() })],
    ["an absolute key", () => ({ "/tmp/escaped": pinned() })],
    ["a use that climbs out of prose_modules/", () => ({ "carol/news": pinned(["../../escaped"]) })],
    ["a key spelt with @", () => ({ "@carol/news": pinned() })],
  ])("with %s is refused before anything is fetched or written", async (_, programs) => {
    const { project, outside } = projectWith(programs());
    registry.requests.length = 0;
    for (const action of [
      () => installPrograms({ cwd: project, registry: registry.url }),
      () => updatePrograms([], { cwd: project, registry: registry.url }),
    ]) {
      const failure = await action().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(existsSync(join(outside, "escaped.prose"))).toBe(false);
      expect(failure).toBeInstanceOf(LockfileError);
      expect((failure as Error).message).toMatch(/^prose\.lock records .+, which is neither a registry reference/);
    }
    expect(() => verifyInstalled(project)).toThrow(LockfileError);
    expect(registry.requests).toEqual([]);
    expect(existsSync(join(project, "prose_modules"))).toBe(false);
  });

  it("with URL keys and registry references still installs", async () => {
    const { project } = projectWith({ "carol/news": pinned(), [`${registry.url}/carol/news`]: pinned() });
    const restored = await installPrograms({ cwd: project, registry: registry.url });
    expect(restored.map((program) => program.key)).toEqual(["carol/news", `${registry.url}/carol/news`]);
    expect(verifyInstalled(project)).toEqual([]);
  });
});

describe("a prose_modules/ holding a link", () => {
  it.each([
    ["a handle's folder", "prose_modules/carol"],
    ["prose_modules/ itself", "prose_modules"],
  ])("as %s is refused, and nothing is written where it leads", async (_, linked) => {
    const { project, outside } = projectWith({});
    const target = join(outside, "target");
    mkdirSync(target);
    mkdirSync(join(project, "prose_modules"), { recursive: true });
    if (linked === "prose_modules") {
      rmSync(join(project, "prose_modules"), { recursive: true });
      symlinkSync(target, join(project, linked));
    } else symlinkSync(target, join(project, linked));
    const lockBefore = readFileSync(join(project, "prose.lock"), "utf8");
    const failure = await addPrograms(["carol/news"], { cwd: project, registry: registry.url }).catch(
      (error: unknown) => error,
    );
    expect(readdirSync(target)).toEqual([]);
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toMatch(new RegExp(`^${linked} is a link: `));
    expect(readFileSync(join(project, "prose.lock"), "utf8")).toBe(lockBefore);
  });
});
