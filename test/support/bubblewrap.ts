/**
 * The OS sandbox's tests need a working bubblewrap. As root, a missing one is installed from Debian's
 * packages, as the DBOS tests' setup installs PostgreSQL; otherwise the tests fail with the line to run.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { bubblewrap } from "../../runtime/tools/sandbox.js";

export function ensureBubblewrap(): string {
  const found = bubblewrap({ again: true });
  if (found !== undefined) return found;
  if (process.getuid?.() !== 0) throw new Error("bubblewrap is missing: run `apt-get install bubblewrap` as root");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "bubblewrap"], { stdio: "ignore", env });
  const installed = bubblewrap({ again: true });
  if (installed === undefined)
    throw new Error(
      "bubblewrap was installed but does not run here: run `apt-get install bubblewrap` and check `bwrap --version`",
    );
  return installed;
}

/**
 * The sandbox tests' other real tools: curl (the network proxy's client) and git, installed from
 * Debian's packages as root when missing; otherwise the tests fail with the line to run.
 */
export function ensureSandboxTools(): void {
  const missing = [
    ["curl", "curl"],
    ["git", "git"],
  ].filter(([command]) => !["/usr/bin", "/bin"].some((folder) => existsSync(`${folder}/${command}`)));
  if (missing.length === 0) return;
  const packages = missing.map(([, name]) => name!);
  if (process.getuid?.() !== 0) throw new Error(`missing: run \`apt-get install ${packages.join(" ")}\` as root`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], { stdio: "ignore", env });
}

/** Vitest's global setup: agents with an unrestricted shell need the sandbox, in every test file. */
export default function setup(): void {
  ensureBubblewrap();
}
