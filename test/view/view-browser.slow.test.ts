/// <reference lib="dom" />
/**
 * `prosec view` in headless Chromium, over committed fixture runs (test/fixtures/view-runs, recorded
 * by scripts/record-view-fixtures.mjs): what a person would check against the run's own files.
 * The page is served by the view server as `prosec view` starts it; `npm run build` bundles its script.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startViewServer, type ViewServer } from "../../src/view/server.js";
import { FolderRuns } from "../../src/runs/folder-runs.js";
import { launchBrowser, type Browser } from "../support/chromium.js";
import { temporaryFolder } from "../runtime/helpers.js";

const fixtures = join(import.meta.dirname, "../fixtures/view-runs");

interface Fixture {
  readonly cwd: string;
  readonly runId: string;
  readonly dir: string;
  readonly journal: Array<{ key: string; kind: string }>;
  readonly spent: { dollars: number; calls: number };
}

function fixture(name: string): Fixture {
  const cwd = join(fixtures, name);
  const runId = readdirSync(join(cwd, ".prose", "runs"))[0]!;
  const dir = join(cwd, ".prose", "runs", runId);
  const journal = readFileSync(join(dir, "journal.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { key: string; kind: string });
  const spent = JSON.parse(readFileSync(join(dir, "spent.json"), "utf8")) as { dollars: number; calls: number };
  return { cwd, runId, dir, journal, spent };
}

let browser: Browser;
const servers: ViewServer[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await browser?.close();
});

async function open(name: string): Promise<{ page: Page; errors: string[]; run: Fixture }> {
  const run = fixture(name);
  const server = await startViewServer(new FolderRuns(run.cwd));
  servers.push(server);
  const { page, errors } = await browser.newPage({ allowOrigin: server.url });
  await page.goto(`${server.url}run/${run.runId}`);
  await page.waitForSelector("#summary");
  return { page, errors, run };
}

const text = (page: Page, selector: string) => page.locator(selector).first().innerText();

describe("prosec view in Chromium", () => {
  it("a finished run: its steps and cost are the journal's and spent.json's, its judgment shows its evidence, its tool call its result", async () => {
    const { page, errors, run } = await open("finished");
    expect(await text(page, "#status")).toBe("complete");
    expect(await text(page, "#step-count")).toBe(String(run.journal.length));
    expect(await text(page, "#cost")).toBe(`$${run.spent.dollars.toFixed(4)}`);
    expect(await text(page, "#calls")).toBe(String(run.spent.calls));
    // Each line that ran is marked done, with how many times it ran.
    const lines = run.journal.map((record) => Number(/@(\d+):\d+#\d+$/.exec(record.key)![1]));
    for (const line of new Set(lines)) {
      const element = page.locator(`#source .line[data-line="${line}"]`);
      expect(await element.getAttribute("data-state")).toBe("done");
      expect(await element.locator(".runs").innerText()).toMatch(
        new RegExp(`^${lines.filter((l) => l === line).length}×`),
      );
    }
    expect(await page.locator("#source .line[data-state]").count()).toBe(new Set(lines).size);
    // The judgment's evidence: what it was asked, with the value it saw, and its answer and reason.
    const judgment = run.journal.findIndex((record) => record.kind === "judge");
    await page.locator(`#steps .step[data-key="${run.journal[judgment]!.key}"]`).click();
    const detail = page.locator("#detail .step-detail");
    expect(await detail.getAttribute("data-key")).toBe(run.journal[judgment]!.key);
    expect(await detail.locator(".evidence").innerText()).toMatch(/Scripted: the evidence says (true|false)/);
    expect(await detail.locator(".request").first().innerText()).toContain("the poem is polished");
    // The tool call and its result.
    await page.locator(`#steps .step[data-key="${run.journal[0]!.key}"]`).click();
    expect(await detail.locator(".tool-call").first().innerText()).toContain("read_file");
    expect(await detail.locator(".tool-result").first().innerText()).toContain("tides rise twice a day");
    expect(await detail.locator(".usage").innerText()).toMatch(/cache read/);
    // The graph, with the run's state on it (asked for after the rest of the page).
    // The graph is drawn when it comes into view.
    await page.locator("#graph").scrollIntoViewIfNeeded();
    await page.waitForSelector("#graph svg");
    expect(await page.locator("#graph svg .node.session").count()).toBe(3);
    expect(await page.locator("#graph svg .node.session.run-done").count()).toBe(3);
    expect(errors).toEqual([]);
  });

  it("moves between steps with the keyboard", async () => {
    const { page, errors, run } = await open("finished");
    await page.locator("#steps").focus();
    const selected = () => page.locator("#steps .step[aria-selected=true]").getAttribute("data-index");
    expect(await selected()).toBe("0");
    await page.keyboard.press("ArrowDown");
    expect(await selected()).toBe("1");
    await page.keyboard.press("j");
    expect(await selected()).toBe("2");
    await page.keyboard.press("ArrowUp");
    expect(await selected()).toBe("1");
    await page.keyboard.press("End");
    expect(await selected()).toBe(String(run.journal.length - 1));
    expect(await page.locator("#detail .step-detail").getAttribute("data-key")).toBe(
      await page.locator("#steps .step[aria-selected=true]").getAttribute("data-key"),
    );
    await page.keyboard.press("Home");
    expect(await selected()).toBe("0");
    expect(errors).toEqual([]);
  });

  it("a failed run: the failed line is highlighted and the error shown", async () => {
    const { page, errors, run } = await open("failed");
    expect(await text(page, "#status")).toBe("failed");
    expect(await text(page, "#step-count")).toBe(String(run.journal.length));
    const failed = page.locator("#source .line.run-failed");
    expect(await failed.count()).toBe(1);
    expect(await failed.getAttribute("data-line")).toBe("3");
    expect(await failed.innerText()).toContain("Summarise the notes");
    expect(await text(page, "#run-error")).toContain("scripted failure");
    await page.locator("#steps .step.state-failed").click();
    expect(await page.locator("#detail .step-error").innerText()).toContain("scripted failure");
    // The graph is drawn when it comes into view.
    await page.locator("#graph").scrollIntoViewIfNeeded();
    await page.waitForSelector("#graph svg");
    expect(await page.locator("#graph svg .node.run-failed").count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it("a parallel run: one timeline lane per branch", async () => {
    const { page, errors, run } = await open("parallel");
    const branches = [...new Set(run.journal.map((record) => record.key.slice(0, record.key.lastIndexOf("/"))))];
    expect(branches.filter((lane) => /\/b\d+$/.test(lane))).toHaveLength(3);
    const lanes = await page
      .locator("#timeline .lane")
      .evaluateAll((elements) => elements.map((element) => element.getAttribute("data-lane")));
    expect(lanes.sort()).toEqual(branches.map((lane) => lane || "/").sort());
    for (const lane of branches.filter((lane) => /\/b\d+$/.test(lane)))
      expect(await page.locator(`#timeline .lane[data-lane="${lane}"] .bar`).count()).toBe(1);
    expect(await text(page, "#cost")).toBe(`$${run.spent.dollars.toFixed(4)}`);
    expect(errors).toEqual([]);
  });

  it("a run waiting for input says what it waits for", async () => {
    const { page, errors, run } = await open("waiting");
    expect(await text(page, "#status")).toBe("waiting");
    expect(await text(page, "#waiting")).toContain("audience");
    expect(await text(page, "#step-count")).toBe(String(run.journal.length));
    expect(errors).toEqual([]);
  });

  it("lists the runs newest first, each linking to its page", async () => {
    const cwd = temporaryFolder("prosec-view-runs-");
    try {
      mkdirSync(join(cwd, ".prose", "runs"), { recursive: true });
      const names = ["finished", "failed", "parallel", "waiting"];
      for (const name of names) {
        const run = fixture(name);
        cpSync(run.dir, join(cwd, ".prose", "runs", run.runId), { recursive: true });
      }
      const server = await startViewServer(new FolderRuns(cwd));
      servers.push(server);
      const { page, errors } = await browser.newPage({ allowOrigin: server.url });
      await page.goto(server.url);
      const ids = await page
        .locator("#runs tbody tr")
        .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-run")));
      expect(ids).toEqual(
        names
          .map((name) => fixture(name).runId)
          .sort()
          .reverse(),
      );
      await page.locator(`#runs tr[data-run="${fixture("parallel").runId}"] a`).click();
      await page.waitForSelector("#summary");
      expect(await text(page, "#status")).toBe("complete");
      expect(errors).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
