/// <reference lib="dom" />
/**
 * `prosec view` of a long run (1,100 steps, each in a lane of its own): the page holds only the rows in
 * view, gets a step's requests when it is selected (from the server, or from the report's compressed
 * chunks), and its first data carries no request text.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startViewServer, type ViewServer } from "../../src/view/server.js";
import { FolderRuns } from "../../src/runs/folder-runs.js";
import { REPORT_CHUNK_STEPS } from "../../src/view/report.js";
import { launchBrowser, type Browser } from "../support/chromium.js";
import { prosec } from "../support/cli.js";
import { temporaryFolder } from "../runtime/helpers.js";
import { writeLongRun, type LongRun } from "./long-run.js";

const STEPS = 2 * REPORT_CHUNK_STEPS + 100;

let browser: Browser;
let server: ViewServer;
let cwd: string;
let run: LongRun;

beforeAll(async () => {
  cwd = temporaryFolder("prosec-view-long-");
  run = writeLongRun(cwd, STEPS);
  browser = await launchBrowser();
  server = await startViewServer(new FolderRuns(cwd));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await browser?.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** Goes to the last step with the keyboard; resolves with its detail's first request text. */
async function lastStepRequest(page: Page): Promise<string> {
  await page.locator("#steps").focus();
  await page.keyboard.press("End");
  const last = run.keys[STEPS - 1]!;
  expect(await page.locator("#steps .step[aria-selected=true]").getAttribute("data-key")).toBe(last);
  return page.locator(`#detail .step-detail[data-key="${last}"] .request`).first().innerText();
}

describe("prosec view of a long run", () => {
  it("serves an index without request texts, keeps only the rows in view, and asks for a step's details when selected", async () => {
    const { page, errors } = await browser.newPage({ allowOrigin: server.url });
    const asked: string[] = [];
    page.on("request", (request) => asked.push(new URL(request.url()).pathname));
    await page.goto(`${server.url}run/${run.runId}`);
    expect(await page.locator("#step-count").innerText()).toBe(String(STEPS));
    // The page's own data names no prompt: those come with a step's details.
    const html = await (await fetch(`${server.url}run/${run.runId}`)).text();
    expect(html).not.toContain(run.prompt(STEPS - 1));
    // Only the rows in view (and a few around them) are in the page, in the list and the timeline.
    expect(await page.locator("#steps .step").count()).toBeLessThan(60);
    expect(await page.locator("#timeline .lane").count()).toBeLessThan(60);
    expect(await page.locator("#timeline").evaluate((element) => element.scrollHeight)).toBeGreaterThan(STEPS * 19);
    expect(await lastStepRequest(page)).toContain(run.prompt(STEPS - 1));
    expect(asked.filter((path) => path.includes("/step/"))).toContain(
      `${new URL(server.url).pathname}api/run/${run.runId}/step/${encodeURIComponent(run.keys[STEPS - 1]!)}`,
    );
    // Scrolled to the end, the list shows the last steps.
    await page.locator("#steps").evaluate((element) => (element.scrollTop = element.scrollHeight));
    await expect.poll(() => page.locator(`#steps .step[data-key="${run.keys[STEPS - 2]!}"]`).count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it("answers a step's details with the texts they name, and 404 for a step the run does not have", async () => {
    const key = run.keys[7]!;
    const response = await fetch(`${server.url}api/run/${run.runId}/step/${encodeURIComponent(key)}`);
    expect(response.status).toBe(200);
    const { detail, texts } = (await response.json()) as {
      detail: { key: string; requests: Array<{ messages: Array<{ content: Array<{ text: string }> }> }> };
      texts: Record<string, string>;
    };
    expect(detail.key).toBe(key);
    expect(texts[detail.requests[0]!.messages[0]!.content[0]!.text]).toBe(run.prompt(7));
    // Only the texts this step names.
    expect(Object.values(texts)).not.toContain(run.prompt(8));
    const missing = await fetch(`${server.url}api/run/${run.runId}/step/${encodeURIComponent("/session@9:9#9")}`);
    expect(missing.status).toBe(404);
  });

  it("writes a report that carries every step's details compressed, and shows one from its last chunk offline", async () => {
    const out = join(cwd, "report.html");
    const result = prosec(["view", run.runId, "--out", out], cwd);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const html = readFileSync(out, "utf8");
    // Compressed: no prompt is in the file as text, and the file is smaller than the trace it shows.
    expect(html).not.toContain(run.prompt(STEPS - 1));
    expect(html.length).toBeLessThan(readFileSync(join(run.dir, "trace", "steps.jsonl"), "utf8").length);
    expect(html.match(/id="prosec-details-\d+"/g)).toHaveLength(Math.ceil(STEPS / REPORT_CHUNK_STEPS));
    const { page, errors } = await browser.newPage({ allowOrigin: `file://${out}` });
    await page.goto(`file://${out}`);
    expect(await lastStepRequest(page)).toContain(run.prompt(STEPS - 1));
    await page.locator("#steps").focus();
    await page.keyboard.press("Home");
    expect(await page.locator(`#detail .step-detail[data-key="${run.keys[0]!}"] .request`).innerText()).toContain(
      run.prompt(0),
    );
    expect(errors).toEqual([]);
  });
});
