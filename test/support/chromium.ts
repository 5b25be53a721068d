/**
 * Headless Chromium for the browser tests: Debian's `chromium` package (installed by the global
 * setup below through `.ci/chromium`, as root, or the tests fail with the `apt-get install chromium`
 * line), driven by playwright-core without any browser download. Each browser gets a fresh profile
 * folder, removed when it closes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const script = fileURLToPath(new URL("../../.ci/chromium", import.meta.url));

/** Flags that work here as root, headless, with nothing reaching the network. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Vitest global setup: Chromium is there before any browser test starts. */
export default function setup(): void {
  if (!existsSync(CHROMIUM)) execFileSync("bash", [script], { stdio: ["ignore", "ignore", "inherit"] });
}

export interface Browser {
  readonly context: BrowserContext;
  /** A new page whose console errors and uncaught exceptions are collected, and whose requests off the page's own server fail. */
  newPage(options?: { readonly allowOrigin?: string }): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error("Chromium is missing: run `apt-get install chromium` as root");
  const profile = mkdtempSync(join(tmpdir(), "prosec-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      // Chromium's own temporary files (its singleton socket) go into the profile, removed with it.
      env: { ...process.env, TMPDIR: profile },
      viewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async newPage(options = {}) {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (options.allowOrigin !== undefined && url.startsWith(options.allowOrigin)) return route.continue();
        if (url.startsWith("data:") || url.startsWith("about:")) return route.continue();
        errors.push(`request off the page: ${url}`);
        return route.abort();
      });
      return { page, errors };
    },
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}
