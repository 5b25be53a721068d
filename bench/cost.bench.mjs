// What the corpus programs cost, measured through the path users take: each program compiled
// (dist/src), its module run (dist/runtime) against the caching fake Messages API in a child process,
// with the scripted corpus model of the e2e test (test/support/corpus-model.ts), made to behave like
// agents at work: a session offered tools reads files of its project, one model turn each, before it
// answers with two items of about 300 tokens each. How many files, and how large, are the
// CONFIGURATIONS below: the headline is the first; the others show how the saving depends on them.
// Token figures are deterministic: one run each.
//
// 1. Prompt caching: billed-equivalent input tokens (input + 1.25 x cache writes + 0.1 x cache reads)
//    of each program run with caching, against the same run without (RunOptions.promptCaching: false).
//    Programs with 5 or more sessions whose stable prefix (tools, system, memory, context or trail) reaches
//    the model's minimum cacheable length are the cacheable ones; the others are listed with their
//    largest stable prefix.
// 2. Tightness of the static bound: the calls each run made ÷ its bound evaluated with the run's
//    inputs and the list sizes and loop counts it saw.
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fakeServerModule, transpileFakeServer } from "./support/fake-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const corpus = join(root, "examples/openprose");
/** A reply item of about 1,200 characters (300 tokens): sessions answer with two of them. */
const ITEM_TEXT = `: ${"a finding with its evidence, its caveats and what it means for the next step; ".repeat(15).trim()}`;
const LINE = "- an observation about the code base, with the file and the line it concerns\n";
/** Tool turns per session, and lines per file read (20 tokens a line). */
const CONFIGURATIONS = [
  { toolTurns: 5, lines: 100 },
  { toolTurns: 3, lines: 100 },
  { toolTurns: 5, lines: 30 },
  { toolTurns: 0, lines: 0 },
];

if (process.argv[2] === "--serve") await serve();
else await main();

// ---------------------------------------------------------------------------------------------
// The child: one fresh fake server (fresh cache) per program run.
// ---------------------------------------------------------------------------------------------

async function serve() {
  const { startFakeAnthropic } = await import(pathToFileURL(fakeServerModule).href);
  const { scriptedModel } = await import(pathToFileURL(join(fakeServerModule, "../corpus-model.mjs")).href);
  const { callKind } = await import(pathToFileURL(join(fakeServerModule, "../requests.mjs")).href);
  const { documentedMinimum, estimateTokens } = await import(
    pathToFileURL(join(fakeServerModule, "../fake-usage.mjs")).href
  );
  let server;
  process.on("message", async (message) => {
    if (message.type === "start") {
      const model = scriptedModel(message.source, message.scenario, {
        itemText: ITEM_TEXT,
        toolTurns: message.toolTurns,
      });
      server = await startFakeAnthropic({ respond: model.respond });
      process.send({ type: "started", url: server.url });
    } else if (message.type === "stop") {
      // A session's first turn: its later turns are tool turns of the same session.
      const sessions = server.requests.filter(
        (request) =>
          request.body !== undefined && callKind(request) === "session" && request.body.messages.length === 1,
      );
      const prefixes = sessions.map((request) => stablePrefixTokens(request.body, estimateTokens));
      const minimum = sessions.length === 0 ? 0 : documentedMinimum(sessions[0].body.model);
      // A model step's first request (a session's later turns are tool turns, which the bound does not count).
      const steps = server.requests.filter((request) => request.body?.messages.length === 1).length;
      const byKind = {};
      for (const request of server.requests) {
        if (request.usage === undefined) continue;
        const kind = request.body.messages.length > 1 ? "tool turn" : callKind(request);
        const entry = (byKind[kind] ??= { input: 0, write: 0, read: 0, count: 0 });
        entry.count++;
        entry.input += request.usage.input_tokens;
        entry.write += request.usage.cache_creation_input_tokens ?? 0;
        entry.read += request.usage.cache_read_input_tokens ?? 0;
      }
      if (process.env.COST_BENCH_DETAIL) console.error(JSON.stringify(byKind));
      process.send({
        type: "stats",
        requests: server.requests.length,
        steps,
        sessions: sessions.length,
        cacheableSessions: prefixes.filter((tokens) => tokens >= minimum).length,
        largestPrefix: Math.max(0, ...prefixes),
        minimum,
      });
      await server.close();
    } else if (message.type === "exit") {
      process.exit(0);
    }
  });
  process.send({ type: "ready" });
}

/** Tools, system and every block of the first user message but its last (the task): what stays the same. */
function stablePrefixTokens(body, estimateTokens) {
  const text = (block) =>
    typeof block === "string" ? block : block.type === "text" ? block.text : JSON.stringify(block);
  let tokens = (body.tools ?? []).reduce((sum, tool) => sum + estimateTokens(JSON.stringify(tool)), 0);
  tokens += (typeof body.system === "string" ? [body.system] : (body.system ?? [])).reduce(
    (sum, block) => sum + estimateTokens(text(block)),
    0,
  );
  const first = body.messages[0]?.content;
  if (Array.isArray(first)) tokens += first.slice(0, -1).reduce((sum, block) => sum + estimateTokens(text(block)), 0);
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// The parent: compile, run twice (caching on and off), compare.
// ---------------------------------------------------------------------------------------------

async function main() {
  transpileFakeServer();
  const { compile } = await import(pathToFileURL(join(root, "dist/src/compile.js")).href);
  const { evaluate, inputValues, totalCalls } = await import(
    pathToFileURL(join(root, "dist/runtime/cost/bound.js")).href
  );
  const { corpusScenarios } = await import(pathToFileURL(join(fakeServerModule, "../corpus-model.mjs")).href);
  const runtime = pathToFileURL(join(root, "dist/runtime/index.js")).href;
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "prosec-cost-bench-")));
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const replies = [];
  const waiters = [];
  child.on("message", (message) => (waiters.length > 0 ? waiters.shift()(message) : replies.push(message)));
  const next = () =>
    replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((resolve) => waiters.push(resolve));
  await next();

  const modules = [];
  for (const name of readdirSync(corpus)
    .filter((file) => file.endsWith(".prose"))
    .sort()) {
    const source = readFileSync(join(corpus, name), "utf8");
    const path = join(scratch, `${name}.mjs`);
    writeFileSync(
      path,
      (await transpile((await compile(source, name)).code)).replace(
        /from "prosec\/runtime"/g,
        `from ${JSON.stringify(runtime)}`,
      ),
    );
    modules.push({
      name,
      source,
      scenario: corpusScenarios[name] ?? {},
      module: await import(pathToFileURL(path).href),
    });
  }
  const results = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      const rows = [];
      for (const { name, source, scenario, module } of modules) {
        const runs = {};
        for (const caching of [true, false]) {
          child.send({ type: "start", source, scenario, toolTurns: configuration.toolTurns });
          const { url } = await next();
          const events = [];
          const given = scenario.inputs ?? {};
          const cwd = mkdtempSync(join(scratch, "run-"));
          mkdirSync(join(cwd, "notes"));
          for (let turn = 1; turn <= configuration.toolTurns; turn++)
            writeFileSync(join(cwd, "notes", `${turn}.md`), `# Notes ${turn}\n\n${LINE.repeat(configuration.lines)}`);
          const inputs = Object.fromEntries(module.default.inputs.map((input) => [input.name, given[input.name]]));
          const options = {
            baseURL: url,
            apiKey: "sk-ant-bench-0123456789",
            cwd,
            homeDir: cwd,
            concurrency: 1,
            maxRetries: 0,
            promptCaching: caching,
          };
          await module
            .run(inputs, {
              ...options,
              onInput: (definition) => given[definition.name] ?? "",
              onEvent: (event) => events.push(event),
            })
            .catch(() => undefined);
          child.send({ type: "stop" });
          runs[caching] = { stats: await next(), events };
        }
        const usage = runs[true].events.findLast((event) => event.type === "run-end")?.usage ?? [];
        const without = runs[false].events.findLast((event) => event.type === "run-end")?.usage ?? [];
        const billed = usage.reduce(
          (sum, entry) =>
            sum + entry.inputTokens + 1.25 * (entry.cacheWriteTokens ?? 0) + 0.1 * (entry.cacheReadTokens ?? 0),
          0,
        );
        const plain = without.reduce((sum, entry) => sum + entry.inputTokens, 0);
        const cost = module.default.cost;
        const bound = evaluate(totalCalls(cost), observed(cost, runs[true].events, scenario.inputs ?? {}, inputValues));
        rows.push({ name, ...runs[true].stats, billed, plain, bound });
      }
      results.push({ configuration, rows });
    }
  } finally {
    child.send({ type: "exit" });
    rmSync(scratch, { recursive: true, force: true });
  }
  report(results);
}

/** The bound's symbols as the run gave them (as test/e2e/harness.ts does). */
function observed(cost, events, inputs, inputValues) {
  const fromInputs = inputValues(cost, inputs);
  const values = new Map();
  for (const symbol of cost.symbols) {
    let largest = 0;
    for (const event of events) {
      if (
        event.source !== undefined ||
        event.at === undefined ||
        !symbol.sites.some((site) => site.line === event.at.line && site.column === event.at.column)
      )
        continue;
      if (symbol.kind === "items" && event.type === "list") largest = Math.max(largest, event.items);
      if (symbol.kind === "count" && event.type === "loop-iteration") largest = Math.max(largest, event.iteration + 1);
    }
    values.set(symbol.name, fromInputs(symbol.name) ?? largest);
  }
  return (name) => values.get(name);
}

async function transpile(code) {
  const { createRequire } = await import("node:module");
  const ts = createRequire(import.meta.url)("typescript");
  return ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText;
}

function report(results) {
  const number = (value) => Math.round(value).toLocaleString("en-US");
  const describe = ({ toolTurns, lines }) =>
    toolTurns === 0
      ? "sessions answer at once (no tool turns)"
      : `sessions read ${toolTurns} files of ${number(lines * 20)} tokens first`;
  const cacheableOf = (rows) => rows.filter((row) => row.cacheableSessions >= 5);
  const ratioOf = (rows) =>
    rows.reduce((sum, row) => sum + row.billed, 0) / rows.reduce((sum, row) => sum + row.plain, 0);
  const [headline] = results;
  const rows = headline.rows;
  const cacheable = cacheableOf(rows);
  console.log(
    `Prompt caching, ${describe(headline.configuration)}: billed-equivalent input tokens with caching ÷ without, over the programs with 5 or more sessions whose stable prefix reaches the minimum\n`,
  );
  console.log("| program | sessions | reaching the minimum | with caching | without | ratio |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const row of cacheable)
    console.log(
      `| ${row.name.replace(/\.prose$/, "")} | ${row.sessions} | ${row.cacheableSessions} | ${number(row.billed)} | ${number(row.plain)} | ${(row.billed / row.plain).toFixed(2)} |`,
    );
  const ratios = cacheable.map((row) => row.billed / row.plain).sort((a, b) => a - b);
  console.log(
    `| all ${cacheable.length} | | | ${number(cacheable.reduce((sum, row) => sum + row.billed, 0))} | ${number(cacheable.reduce((sum, row) => sum + row.plain, 0))} | **${ratioOf(cacheable).toFixed(2)}** (per program min ${ratios[0]?.toFixed(2)}, median ${ratios[Math.floor(ratios.length / 2)]?.toFixed(2)}, max ${ratios.at(-1)?.toFixed(2)}) |`,
  );
  const others = rows.filter((row) => row.cacheableSessions < 5);
  console.log(
    `\nNot cacheable (fewer than 5 sessions whose stable prefix reaches the minimum of ${number(rows[0]?.minimum)} tokens); largest stable prefix in tokens (sessions reaching it / sessions):`,
  );
  console.log(
    others
      .map(
        (row) =>
          `${row.name.replace(/\.prose$/, "")} ${number(row.largestPrefix)} (${row.cacheableSessions}/${row.sessions})`,
      )
      .join(", "),
  );

  console.log("\nThe same over other agent behaviours (the cacheable programs: those of each row's run):\n");
  console.log("| sessions | cacheable programs | ratio, cacheable programs | ratio, whole corpus |");
  console.log("| --- | --- | --- | --- |");
  for (const { configuration, rows: each } of results)
    console.log(
      `| ${describe(configuration)} | ${cacheableOf(each).length} | ${ratioOf(cacheableOf(each)).toFixed(2)} | ${ratioOf(each).toFixed(2)} |`,
    );

  const bounded = rows.filter((row) => Number.isFinite(row.bound));
  const tightness = bounded.map((row) => row.steps / row.bound).sort((a, b) => a - b);
  console.log(
    "\nStatic bound: model calls made (first turns: the bound does not count tool turns) ÷ bound with the run's inputs and observed sizes\n",
  );
  console.log(`| programs | bounded | tightness min | median | max | unbounded | over the bound |`);
  console.log(`| --- | --- | --- | --- | --- | --- | --- |`);
  console.log(
    `| ${rows.length} | ${bounded.length} | ${tightness[0]?.toFixed(3)} | ${tightness[Math.floor(tightness.length / 2)]?.toFixed(2)} | ${tightness.at(-1)?.toFixed(2)} | ${rows.length - bounded.length} | ${rows.filter((row) => row.steps > row.bound).length} |`,
  );
  console.log(
    `\nLoosest: ${bounded
      .sort((a, b) => a.steps / a.bound - b.steps / b.bound)
      .slice(0, 5)
      .map((row) => `${row.name.replace(/\.prose$/, "")} ${row.steps}/${number(row.bound)}`)
      .join(", ")}`,
  );
}
