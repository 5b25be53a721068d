/**
 * A checkout installed by path (`npm install ../prosec`, what `prosec init` prints) is a link: npm runs
 * the checkout's `prepare` on every `npm install` in the app. It rebuilds only when the sources changed,
 * and a rebuild never takes dist/ away: `prosec check`, run in a loop meanwhile, never fails. Here on a
 * copy of the checkout (its dependencies linked from this one), so the rebuild does not touch the
 * dist/ the other tests run.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/exit-codes.js";
import { BUILD_SOURCES, copyOfCheckout } from "../support/checkout-copy.js";
import { temporaryFolder } from "../support/temp.js";

interface Exit {
  readonly status: number | null;
  readonly output: string;
}

function run(command: string, args: readonly string[], cwd: string): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false", npm_config_fund: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** Where a link points, or what it is instead. */
function linkTarget(path: string): string {
  return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : "(a folder, not a link)";
}

describe("a checkout installed by path", () => {
  it(
    "rebuilds only when its sources changed, and dist/ is never missing while `prosec check` runs",
    { timeout: 600_000 },
    async () => {
      // A checkout as `npm ci` leaves it: sources, dependencies, a build and dist/ linking to it.
      const { folder: checkout, build: firstBuild } = copyOfCheckout(
        "prosec-linked-checkout-",
        [...BUILD_SOURCES, "bin"],
        { dependencies: true },
      );
      // An edit since the last build: the first install rebuilds.
      appendFileSync(join(checkout, "src/index.ts"), "\n// An edit since the last build.\n");
      const app = temporaryFolder("prosec-linked-app-");
      writeFileSync(
        join(app, "package.json"),
        JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { prosec: `file:${checkout}` } }),
      );
      writeFileSync(join(app, "hello.prose"), 'session "Say hello"\n');
      const cli = join(app, "node_modules/prosec/bin/prosec");

      // `prosec check` in a loop, and a look at dist/ every few milliseconds, until both installs end.
      let installing = true;
      const failures: string[] = [];
      let checks = 0;
      let looks = 0;
      const entry = join(checkout, "dist/src/cli/main.js");
      const watcher = setInterval(() => {
        looks++;
        if (!existsSync(entry)) failures.push(`dist/src/cli/main.js missing at look ${looks}`);
      }, 5);
      const loop = (async () => {
        while (installing) {
          if (!existsSync(cli)) {
            await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          const checked = await run(process.execPath, [cli, "check", "hello.prose"], app);
          checks++;
          if (checked.status !== EXIT.ok) failures.push(`check ${checks} exited ${checked.status}: ${checked.output}`);
        }
      })();

      let first: Exit;
      let second: Exit;
      let rebuilt: string;
      try {
        first = await run("npm", ["install", "--offline", "--no-audit", "--foreground-scripts"], app);
        rebuilt = linkTarget(join(checkout, "dist"));
        second = await run("npm", ["install", "--offline", "--no-audit", "--foreground-scripts"], app);
      } finally {
        installing = false;
        await loop;
        clearInterval(watcher);
      }
      // Not one `prosec check` failed, and dist/ was there at every look.
      expect(failures).toEqual([]);
      expect(first.status, first.output).toBe(0);
      expect(second.status, second.output).toBe(0);
      expect(lstatSync(join(app, "node_modules/prosec")).isSymbolicLink()).toBe(true);
      // The first install rebuilt into a new folder and moved the link; the second found it current.
      expect(rebuilt).not.toBe(firstBuild);
      expect(readFileSync(join(checkout, "dist/src/index.js"), "utf8")).toContain("An edit since the last build.");
      expect(linkTarget(join(checkout, "dist"))).toBe(rebuilt);
      expect(second.output).not.toContain("tsc");
      // The previous build is kept for processes still running it; nothing half-built is left.
      expect(readdirSync(join(checkout, ".dist")).sort()).toEqual(
        [firstBuild, rebuilt].map((target) => target.replace(/^\.dist\//, "")).sort(),
      );
      expect(checks).toBeGreaterThan(2);
      expect(looks).toBeGreaterThan(10);
    },
  );
});
