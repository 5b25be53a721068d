// `prosec view` on 28-gas-town's long run: its two `loop (max: 1000)` patrols run every round against
// the scripted corpus model (fake server in its own process), through `prosec run`; then `prosec view`
// serves the run and headless Chromium (Debian's chromium, playwright-core) opens it: time to the first
// render of the page, and the longest task while the step list is scrolled from top to bottom.
// Targets: first render under 2 s, no long task over 200 ms while scrolling.
/* global document, requestAnimationFrame, PerformanceObserver */
import { fork, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { fakeServerModule, transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "bin/prosec");
const PROGRAM = "28-gas-town.prose";

if (process.argv[2] === "--serve") {
  const { startFakeAnthropic } = await import(pathToFileURL(fakeServerModule).href);
  const { scriptedModel } = await import(pathToFileURL(join(fakeServerModule, "../corpus-model.mjs")).href);
  const source = readFileSync(join(root, "examples/openprose", PROGRAM), "utf8");
  const server = await startFakeAnthropic({ respond: scriptedModel(source, {}).respond, keepBodies: false });
  process.send({ url: server.url });
  process.on("message", async () => {
    await server.close();
    process.exit(0);
  });
} else await main();

async function main() {
  transpileFakeServer();
  // VIEW_BENCH_CWD: a folder with the run already made (its .prose/runs/ holds one run), kept.
  const given = process.env.VIEW_BENCH_CWD;
  const cwd = given ?? mkdtempSync(join(tmpdir(), "prosec-view-bench-"));
  const profile = mkdtempSync(join(tmpdir(), "prosec-view-bench-chromium-"));
  const server = fork(fileURLToPath(import.meta.url), ["--serve"]);
  let view;
  let browser;
  try {
    const { url } = await new Promise((resolve) => server.once("message", resolve));
    const started = performance.now();
    const status = given === undefined ? await runProgram(cwd, url) : "(given)";
    const runId = readdirSync(join(cwd, ".prose/runs"))[0];
    const dir = join(cwd, ".prose/runs", runId);
    const steps = readFileSync(join(dir, "journal.jsonl"), "utf8").split("\n").length - 1;
    const size = (file) => {
      try {
        return statSync(join(dir, file)).size;
      } catch {
        return 0;
      }
    };
    console.log(
      `run: exit ${status}, ${steps} steps in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `journal ${(size("journal.jsonl") / 1e6).toFixed(1)} MB, trace steps ${(size("trace/steps.jsonl") / 1e6).toFixed(1)} MB, ` +
        `texts ${(size("trace/texts.jsonl") / 1e6).toFixed(1)} MB`,
    );

    view = spawn(process.execPath, [bin, "view", runId], { cwd, stdio: ["ignore", "pipe", "inherit"] });
    const address = await new Promise((resolve) => {
      let out = "";
      view.stdout.on("data", (chunk) => {
        out += chunk;
        const match = /http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]+\//.exec(out);
        if (match) resolve(match[0]);
      });
    });
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    browser = context;
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      const page = await context.newPage();
      await page.addInitScript(() => {
        globalThis.longTasks = [];
        new PerformanceObserver((list) =>
          globalThis.longTasks.push(...list.getEntries().map((entry) => entry.duration)),
        ).observe({
          type: "longtask",
          buffered: true,
        });
      });
      const opened = performance.now();
      await page.goto(address);
      await page.waitForSelector("#steps .step");
      const firstRender = performance.now() - opened;
      await page.evaluate(() => (globalThis.longTasks = []));
      const scroll = await page.evaluate(async () => {
        const list = document.getElementById("steps");
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        let frames = 0;
        while (list.scrollTop + list.clientHeight < list.scrollHeight - 1) {
          list.scrollTop += list.clientHeight * 4;
          await frame();
          frames++;
        }
        await frame();
        return { frames, rows: list.querySelectorAll(".step").length, longTasks: globalThis.longTasks };
      });
      rounds.push({ firstRender, frames: scroll.frames, longest: Math.max(0, ...scroll.longTasks) });
      await page.close();
    }
    const sorted = (values) => [...values].sort((a, b) => a - b);
    const render = sorted(rounds.map((round) => round.firstRender));
    const longest = sorted(rounds.map((round) => round.longest));
    console.log(`\n| ${steps} steps | min | median | max |\n| --- | --- | --- | --- |`);
    console.log(`| first render (ms) | ${render.map((value) => value.toFixed(0)).join(" | ")} |`);
    console.log(`| longest task while scrolling (ms) | ${longest.map((value) => value.toFixed(0)).join(" | ")} |`);
    console.log(
      `\ntargets: first render under 2 s (${render[1] < 2000 ? "met" : "NOT met"}); no long task over 200 ms while scrolling through ${rounds[0].frames} frames (${longest[2] <= 200 ? "met" : "NOT met"})`,
    );
  } finally {
    await browser?.close();
    view?.kill();
    server.send("stop");
    if (given === undefined) rmSync(cwd, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}

async function runProgram(cwd, url) {
  copyFileSync(join(root, "examples/openprose", PROGRAM), join(cwd, PROGRAM));
  const run = spawn(process.execPath, [bin, "run", PROGRAM, "--yes"], {
    cwd,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ANTHROPIC_API_KEY: "sk-ant-bench", ANTHROPIC_BASE_URL: url, NO_COLOR: "1" },
  });
  let narration = "";
  run.stderr.on("data", (chunk) => (narration = (narration + chunk).slice(-2000)));
  const status = await new Promise((resolve) => run.on("close", resolve));
  if (status !== 0) console.log(narration);
  return status;
}
