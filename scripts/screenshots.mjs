#!/usr/bin/env node
// Regenerates the documentation's pictures (`npm run build` first): docs/images/view-run.png, the page
// `prosec view` serves for the finished fixture run, and docs/images/graph.png, `prosec graph`'s SVG of
// a corpus program; both taken in headless Chromium (Debian's chromium, playwright-core).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin/prosec");
const images = join(root, "docs/images");
mkdirSync(images, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "prosec-screenshots-"));
const fixture = join(root, "test/fixtures/view-runs/finished");
const runId = readdirSync(join(fixture, ".prose/runs"))[0];
const view = spawn(process.execPath, [bin, "view", runId], { cwd: fixture, stdio: ["ignore", "pipe", "inherit"] });
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1280, height: 900 },
});
try {
  const address = await new Promise((resolve) => {
    let out = "";
    view.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]+\//.exec(out);
      if (match) resolve(match[0]);
    });
  });
  const page = await context.newPage();
  await page.goto(address);
  await page.waitForSelector("#steps .step");
  await page.locator("#steps .step.state-done").nth(3).click();
  // The page asks for a step's requests when it is selected.
  await page.waitForSelector("#detail .step-detail .request");
  await page.screenshot({ path: join(images, "view-run.png") });

  const svg = spawnSync(
    process.execPath,
    [bin, "graph", "examples/openprose/22-error-handling.prose", "--format", "svg"],
    {
      cwd: root,
      encoding: "utf8",
    },
  ).stdout;
  const graph = await context.newPage();
  await graph.setContent(`<!doctype html><body style="margin:0;background:#fff">${svg}</body>`);
  await graph.locator("svg").screenshot({ path: join(images, "graph.png") });
  console.log("docs/images/view-run.png, docs/images/graph.png");
} finally {
  await context.close();
  view.kill();
  rmSync(profile, { recursive: true, force: true });
}
