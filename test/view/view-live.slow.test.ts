/// <reference lib="dom" />
/**
 * `prosec view` over a run that is going on (a real `prosec run` against the fake Messages API,
 * answering slowly), its saved report, and what its server refuses.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewServer, type ViewServer } from "../../src/view/server.js";
import { FolderRuns } from "../../src/runs/folder-runs.js";
import { prosec, startProsec } from "../support/cli.js";
import { reply, startFakeAnthropic } from "../support/fake-anthropic.js";
import { launchBrowser, type Browser } from "../support/chromium.js";
import { temporaryFolder } from "../runtime/helpers.js";

let browser: Browser;
const servers: ViewServer[] = [];
const folders: string[] = [];
const folder = (prefix: string): string => {
  const path = temporaryFolder(prefix);
  folders.push(path);
  return path;
};

beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await browser?.close();
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");

describe("prosec view, live", () => {
  it("updates the page while the run goes on, up to the journal's last step", async () => {
    const cwd = folder("prosec-view-live-");
    writeFileSync(
      join(cwd, "live.prose"),
      ["First", "Second", "Third", "Fourth", "Fifth"].map((word) => `session "${word} step"\n`).join(""),
    );
    const model = await startFakeAnthropic({ respond: () => reply.text("done", { delayMs: 700 }) });
    const run = startProsec(["run", "live.prose"], cwd, {
      ANTHROPIC_API_KEY: "sk-ant-live",
      ANTHROPIC_BASE_URL: model.url,
    });
    try {
      const runs = join(cwd, ".prose", "runs");
      await expect.poll(() => existsSync(runs) && readdirSync(runs).length === 1, { timeout: 30_000 }).toBe(true);
      const runId = readdirSync(runs)[0]!;
      const server = await startViewServer(new FolderRuns(cwd));
      servers.push(server);
      const { page, errors } = await browser.newPage({ allowOrigin: server.url });
      await page.goto(`${server.url}run/${runId}`);
      const seen = new Set<string>();
      const statuses = new Set<string>();
      let exited = false;
      void run.exit.then(() => (exited = true));
      while (!exited) {
        seen.add(await page.locator("#step-count").innerText());
        statuses.add(await page.locator("#status").innerText());
        await page.waitForTimeout(100);
      }
      expect((await run.exit).status).toBe(0);
      const journal = lines(join(runs, runId, "journal.jsonl"));
      expect(journal).toHaveLength(5);
      await expect.poll(() => page.locator("#status").innerText(), { timeout: 10_000 }).toBe("complete");
      expect(await page.locator("#step-count").innerText()).toBe("5");
      // The page showed the run in between: running, with some of its steps done.
      expect(statuses).toContain("running");
      expect([...seen].map(Number).filter((count) => count > 0 && count < 5).length).toBeGreaterThanOrEqual(2);
      expect(errors).toEqual([]);
    } finally {
      run.child.kill();
      await run.exit;
      await model.close();
    }
  }, 120_000);
});

describe("prosec view --out", () => {
  it("writes one file that opens offline and shows the run", async () => {
    const fixture = join(import.meta.dirname, "../fixtures/view-runs/parallel");
    const runId = readdirSync(join(fixture, ".prose", "runs"))[0]!;
    const out = join(folder("prosec-view-report-"), "report.html");
    const result = prosec(["view", runId, "--out", out], fixture);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    const { page, errors } = await browser.newPage({ allowOrigin: `file://${out}` });
    await page.goto(`file://${out}`);
    expect(await page.locator("#status").innerText()).toBe("complete");
    expect(await page.locator("#step-count").innerText()).toBe(
      String(lines(join(fixture, ".prose", "runs", runId, "journal.jsonl")).length),
    );
    expect(await page.locator("#timeline .lane").count()).toBe(4);
    expect(errors).toEqual([]);
  });
});

describe("prosec view's server", () => {
  it("answers on 127.0.0.1 only under its token, read-only", async () => {
    const fixture = join(import.meta.dirname, "../fixtures/view-runs/finished");
    const server = await startViewServer(new FolderRuns(fixture));
    servers.push(server);
    const url = new URL(server.url);
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toMatch(/^\/[0-9a-f]{32}\/$/);
    expect((await fetch(server.url)).status).toBe(200);
    expect((await fetch(`${url.origin}/`)).status).toBe(404);
    expect((await fetch(`${url.origin}/${"0".repeat(32)}/api/runs`)).status).toBe(404);
    expect((await fetch(`${server.url}api/runs`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}api/run/..%2F..%2Fpackage.json`)).status).toBe(404);
    const runs = (await (await fetch(`${server.url}api/runs`)).json()) as Array<{ runId: string }>;
    expect(runs).toHaveLength(1);
  });

  it("the CLI prints the address, refuses an unknown run", () => {
    const fixture = join(import.meta.dirname, "../fixtures/view-runs/finished");
    const result = prosec(["view", "20990101-000000-ffffff"], fixture);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("no run 20990101-000000-ffffff in .prose/runs");
  });
});
