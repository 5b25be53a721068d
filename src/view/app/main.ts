/// <reference lib="dom" />
/**
 * `prosec view`'s page (bundled by esbuild into dist/view/app.js, inlined in every page): the runs, or
 * one run: its source with each line's state, a timeline with a lane per parallel branch, the steps
 * (a virtualized list: 20,000 steps scroll smoothly) with what each sent and got, and the graph. It
 * reads the data the page was written with; served live, it asks for a new version every 500 ms.
 */
import type { RunData, RunSummary, StepView } from "../run-data.js";
import { el, formatDollars, formatDuration, formatNumber, textBlock } from "./dom.js";
import { VirtualList } from "./virtual-list.js";

interface PageData {
  readonly mode: "runs" | "run";
  readonly runs?: readonly RunSummary[];
  readonly run?: RunData;
  /** The server's API root (`/<token>/api/`) when served; absent in a saved report. */
  readonly api?: string;
}

const POLL_MS = 500;
/** The timeline draws at most this many bars (a longer run's later steps are in the list). */
const TIMELINE_BARS = 3000;

const data = JSON.parse(document.getElementById("prosec-data")!.textContent!) as PageData;
const root = document.getElementById("app")!;

function renderRuns(runs: readonly RunSummary[]): void {
  root.replaceChildren(
    el("h1", {}, "Runs"),
    runs.length === 0
      ? el("p", {}, "No runs yet.")
      : el(
          "table",
          { id: "runs" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ...["Program", "Status", "Started", "Duration", "Steps", "Tokens", "Cost"].map((h) => el("th", {}, h)),
            ),
          ),
          el(
            "tbody",
            {},
            ...runs.map((run) =>
              el(
                "tr",
                { "data-run": run.runId, class: `status-${run.status}` },
                el(
                  "td",
                  {},
                  el("a", { href: `run/${encodeURIComponent(run.runId)}` }, run.program),
                  // A run in the DBOS database: its page shows what the database holds (dbos-view.ts).
                  ...(run.store === "dbos" ? [" ", el("span", { class: "badge store" }, "DBOS")] : []),
                ),
                el("td", { class: "status" }, run.status),
                el("td", {}, run.startedAt ?? ""),
                el("td", {}, run.durationMs === undefined ? "" : formatDuration(run.durationMs)),
                el("td", {}, formatNumber(run.steps)),
                el("td", {}, formatNumber(run.tokens)),
                el("td", {}, run.cost === undefined ? "" : formatDollars(run.cost)),
              ),
            ),
          ),
        ),
  );
}

class RunPage {
  private selected = 0;
  private list: VirtualList<StepView> | undefined;

  constructor(
    private run: RunData,
    private readonly api: string | undefined,
  ) {}

  start(): void {
    this.render();
    if (this.api !== undefined) this.poll();
  }

  private render(): void {
    const { run } = this;
    const scroll = this.list?.scrollTop ?? 0;
    root.replaceChildren(
      el("h1", {}, `${run.program} `, el("span", { class: `badge status-${run.status}`, id: "status" }, run.status)),
      this.summary(),
      run.error === undefined ? el("span") : el("p", { class: "error", id: "run-error" }, run.error),
      run.waitingFor === undefined
        ? el("span")
        : el(
            "p",
            { class: "waiting", id: "waiting" },
            `Waiting for input: ${run.waitingFor.join(", ")} (prosec answer, then resume)`,
          ),
      el(
        "div",
        { class: "columns" },
        el("section", { class: "panel" }, el("h2", {}, "Program"), this.source()),
        el("section", { class: "panel" }, el("h2", {}, "Steps"), this.stepList(), el("div", { id: "detail" })),
      ),
      el("section", { class: "panel" }, el("h2", {}, "Timeline"), this.timeline()),
      el("section", { class: "panel" }, el("h2", {}, "Graph"), this.graph()),
    );
    this.list!.scrollTop = scroll;
    this.select(Math.min(this.selected, Math.max(0, run.steps.length - 1)), false);
  }

  private summary(): HTMLElement {
    const { run } = this;
    const tokens = run.tokens;
    return el(
      "dl",
      { id: "summary" },
      el("dt", {}, "Steps"),
      el("dd", { id: "step-count" }, String(run.finished)),
      el("dt", {}, "Cost"),
      el("dd", { id: "cost" }, run.spent === undefined ? "—" : formatDollars(run.spent.dollars)),
      el("dt", {}, "Model requests"),
      el("dd", { id: "calls" }, run.spent === undefined ? "—" : String(run.spent.calls)),
      el("dt", {}, "Tokens"),
      el(
        "dd",
        { id: "tokens" },
        `${formatNumber(tokens.input)} in, ${formatNumber(tokens.output)} out, ${formatNumber(tokens.cacheRead)} cache read, ${formatNumber(tokens.cacheWrite)} cache write`,
      ),
      el("dt", {}, "Started"),
      el("dd", {}, run.startedAt ?? "—"),
      el("dt", {}, "Duration"),
      el("dd", {}, run.durationMs === undefined ? "—" : formatDuration(run.durationMs)),
    );
  }

  private source(): HTMLElement {
    const lines = this.run.source.split("\n");
    return el(
      "pre",
      { id: "source" },
      ...lines.map((text, index) => {
        const view = this.run.lines[index];
        const state = view?.state;
        return el(
          "div",
          {
            class: `line${state === undefined ? "" : ` run-${state}`}`,
            "data-line": String(index + 1),
            ...(state === undefined ? {} : { "data-state": state }),
          },
          el("span", { class: "number" }, String(index + 1)),
          el("span", { class: "code" }, text === "" ? " " : text),
          view === undefined || view.runs === 0
            ? el("span")
            : el("span", { class: "runs" }, `${view.runs}×${view.cost > 0 ? ` ${formatDollars(view.cost)}` : ""}`),
        );
      }),
    );
  }

  private stepList(): HTMLElement {
    const container = el("div", { id: "steps", tabindex: "0", role: "listbox", "aria-label": "Steps" });
    this.list = new VirtualList(container, this.run.steps, 26, (step, index) =>
      el(
        "div",
        {
          class: `step state-${step.state}`,
          role: "option",
          "data-key": step.key,
          "data-index": String(index),
          "aria-selected": String(index === this.selected),
        },
        el("span", { class: "kind" }, step.kind),
        el("span", { class: "at" }, `line ${step.line}`),
        el("span", { class: "label" }, step.label),
        el(
          "span",
          { class: "took" },
          step.start !== undefined && step.end !== undefined ? formatDuration(step.end - step.start) : "",
        ),
        el(
          "span",
          { class: "retries" },
          step.retries > 0 ? `${step.retries} retr${step.retries === 1 ? "y" : "ies"}` : "",
        ),
      ),
    );
    container.addEventListener("click", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>(".step");
      if (row !== null) this.select(Number(row.dataset["index"]), true);
    });
    container.addEventListener("keydown", (event) => {
      const moves: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };
      let next: number | undefined;
      if (event.key in moves) next = this.selected + moves[event.key]!;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = this.run.steps.length - 1;
      if (next === undefined) return;
      event.preventDefault();
      this.select(Math.max(0, Math.min(this.run.steps.length - 1, next)), true);
    });
    return container;
  }

  private select(index: number, reveal: boolean): void {
    this.selected = index;
    this.list?.setSelected(index, reveal);
    const step = this.run.steps[index];
    const detail = document.getElementById("detail")!;
    detail.replaceChildren(step === undefined ? el("p", {}, "No steps yet.") : this.detail(step));
  }

  private detail(step: StepView): HTMLElement {
    const text = (id: string | undefined): string =>
      id === undefined ? "" : (this.run.texts[id] ?? "(not in the trace)");
    const usage = step.usage.map(
      (entry) =>
        `${entry.model}: ${formatNumber(entry.inputTokens)} in, ${formatNumber(entry.outputTokens)} out, ${formatNumber(entry.cacheReadTokens ?? 0)} cache read, ${formatNumber(entry.cacheWriteTokens ?? 0)} cache write`,
    );
    return el(
      "div",
      { class: "step-detail", "data-key": step.key },
      el("h3", {}, `${step.kind} · line ${step.line} · ${step.state}`),
      el("p", { class: "label" }, step.label),
      el(
        "dl",
        {},
        el("dt", {}, "Took"),
        el("dd", {}, step.start !== undefined && step.end !== undefined ? formatDuration(step.end - step.start) : "—"),
        el("dt", {}, "Tokens"),
        el("dd", { class: "usage" }, usage.join("; ") || "—"),
        el("dt", {}, "Cost"),
        el("dd", { class: "step-cost" }, step.cost === undefined ? "—" : formatDollars(step.cost)),
        el("dt", {}, "Retries"),
        el("dd", { class: "step-retries" }, String(step.retries)),
      ),
      step.error === undefined ? el("span") : el("p", { class: "error step-error" }, step.error),
      step.reason === undefined
        ? el("span")
        : el(
            "div",
            { class: "evidence" },
            el("h4", {}, "Answer and reason"),
            textBlock(`${text(step.value)}\n${step.reason}`),
          ),
      ...step.requests.map((request) =>
        el(
          "details",
          { class: "request", open: "" },
          el(
            "summary",
            {},
            `Request ${request.n} · ${request.model} · ${formatDuration(request.ms)}${request.error === undefined ? "" : " · failed"}`,
          ),
          el("h4", {}, "System prompt"),
          textBlock(request.system.map(text).join("\n")),
          ...request.messages.map((message) =>
            el(
              "div",
              { class: `message role-${message.role}` },
              el("h4", {}, message.role === "user" ? "Sent" : "Model"),
              ...message.content.map((block) => this.block(block, text)),
            ),
          ),
          request.error !== undefined
            ? el("p", { class: "error" }, request.error)
            : el(
                "div",
                { class: "answer" },
                el("h4", {}, "Answer"),
                ...(request.answer ?? []).map((block) => this.block(block, text)),
              ),
        ),
      ),
      step.value === undefined || step.reason !== undefined
        ? el("span")
        : el("div", { class: "result" }, el("h4", {}, "Result"), textBlock(text(step.value))),
    );
  }

  private block(block: object, text: (id: string) => string): HTMLElement {
    if ("tool" in block)
      return el(
        "div",
        { class: "tool-call" },
        el("strong", {}, `tool call: ${String(block.tool)}`),
        textBlock(text(String((block as unknown as { input: string }).input))),
      );
    if ("result" in block)
      return el(
        "div",
        { class: `tool-result${"error" in block ? " failed" : ""}` },
        el("strong", {}, "tool result"),
        textBlock(text(String(block.result))),
      );
    return textBlock(text(String((block as { text: string }).text)));
  }

  private timeline(): HTMLElement {
    const timed = this.run.steps.filter((step) => step.start !== undefined).slice(0, TIMELINE_BARS);
    if (timed.length === 0) return el("p", { id: "timeline" }, "No timings in this run's trace.");
    const first = Math.min(...timed.map((step) => step.start!));
    const last = Math.max(...timed.map((step) => step.end ?? step.start!));
    const span = Math.max(1, last - first);
    const lanes = new Map<string, StepView[]>();
    for (const step of timed) lanes.set(step.lane, [...(lanes.get(step.lane) ?? []), step]);
    return el(
      "div",
      { id: "timeline" },
      ...[...lanes].map(([lane, steps]) =>
        el(
          "div",
          { class: "lane", "data-lane": lane },
          el("span", { class: "lane-name", title: lane }, laneName(lane)),
          el(
            "div",
            { class: "lane-bars" },
            ...steps.map((step) =>
              el("span", {
                class: `bar state-${step.state}`,
                "data-key": step.key,
                title: `${step.label} (line ${step.line})`,
                style: `left:${(((step.start! - first) / span) * 100).toFixed(3)}%;width:${Math.max(0.3, (((step.end ?? last) - step.start!) / span) * 100).toFixed(3)}%`,
              }),
            ),
          ),
        ),
      ),
      this.run.steps.length > TIMELINE_BARS
        ? el("p", {}, `The timeline shows the first ${TIMELINE_BARS} steps; the list has all.`)
        : el("span"),
    );
  }

  private graph(): HTMLElement {
    const holder = el("div", { id: "graph" });
    // Our own SVG writer's output (every text escaped), drawn by the server from the program. A served
    // page asks for it after showing the rest (a large program's layout takes a while).
    if (this.run.svg !== undefined) holder.innerHTML = this.run.svg;
    else if (this.api !== undefined) {
      holder.textContent = "Drawing the graph…";
      void fetch(`${this.api}run/${encodeURIComponent(this.run.runId)}/graph`)
        .then((response) => response.text())
        .then((svg) => {
          holder.innerHTML = svg;
        })
        .catch(() => {
          holder.textContent = "The graph could not be drawn.";
        });
    }
    return holder;
  }

  private poll(): void {
    const base = `${this.api!}run/${encodeURIComponent(this.run.runId)}`;
    const tick = async (): Promise<void> => {
      try {
        const version = await (await fetch(`${base}/version`)).text();
        if (version !== this.run.version) {
          this.run = (await (await fetch(base)).json()) as RunData;
          this.render();
        }
      } catch {
        // The server stopped (Ctrl-C): the page keeps what it shows.
        return;
      }
      setTimeout(() => void tick(), POLL_MS);
    };
    setTimeout(() => void tick(), POLL_MS);
  }
}

/** A lane's name: its last branch or call segment, or "main". */
function laneName(lane: string): string {
  if (lane === "/" || lane === "") return "main";
  return lane
    .split("/")
    .filter((segment) => segment !== "")
    .slice(-2)
    .join(" / ");
}

if (data.mode === "runs") renderRuns(data.runs ?? []);
else if (data.run !== undefined) new RunPage(data.run, data.api).start();
