/// <reference lib="dom" />
/**
 * One run's page: its summary, the program with each line's state, the steps (a virtualized list)
 * with the selected step's details (asked for when selected), the timeline and the graph (drawn when
 * scrolled to: a large program's graph is big). Served live, it asks for a new version every 500 ms.
 */
import type { RunView } from "../run-view.js";
import { STEP_STATES, stepKey } from "../step-columns.js";
import type { ReportChunks } from "../report-blocks.js";
import { reportDetails, serverDetails, type DetailSource } from "./details.js";
import { el, formatDollars, formatDuration, formatNumber } from "./dom.js";
import { sourceView } from "./source-view.js";
import { detailBody } from "./step-detail-view.js";
import { timeline } from "./timeline.js";
import { VirtualList } from "./virtual-list.js";

const POLL_MS = 500;
const ROW_HEIGHT = 26;

export class RunPage {
  private selected = 0;
  private list: VirtualList | undefined;
  private details: DetailSource;

  constructor(
    private run: RunView,
    private readonly root: HTMLElement,
    /** The server's API root (`/<token>/api/`) when served; absent in a saved report. */
    private readonly api: string | undefined,
    report: ReportChunks | undefined,
  ) {
    this.details = this.detailSource(report);
  }

  start(): void {
    this.render();
    if (this.api !== undefined) this.poll();
  }

  private detailSource(report: ReportChunks | undefined): DetailSource {
    if (this.api !== undefined) return serverDetails(this.api, this.run.runId);
    if (report !== undefined) return reportDetails(report);
    return () => Promise.resolve(undefined);
  }

  private render(): void {
    const { run } = this;
    const scroll = this.list?.scrollTop ?? 0;
    this.root.replaceChildren(
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
        el("section", { class: "panel" }, el("h2", {}, "Program"), sourceView(run.source, run.lines)),
        el("section", { class: "panel" }, el("h2", {}, "Steps"), this.stepList(), el("div", { id: "detail" })),
      ),
      el("section", { class: "panel" }, el("h2", {}, "Timeline"), timeline(run.steps)),
      el("section", { class: "panel" }, el("h2", {}, "Graph"), this.graph()),
    );
    // Setting it lays the page out at once: only worth it when a redraw keeps the list where it was.
    if (scroll > 0) this.list!.scrollTop = scroll;
    this.select(Math.min(this.selected, Math.max(0, run.steps.count - 1)), false);
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

  private stepList(): HTMLElement {
    const { steps } = this.run;
    const container = el("div", { id: "steps", tabindex: "0", role: "listbox", "aria-label": "Steps" });
    this.list = new VirtualList(container, steps.count, ROW_HEIGHT, (index) => {
      const retries = steps.retries[index]!;
      const took = this.took(index);
      return el(
        "div",
        {
          class: `step state-${STEP_STATES[steps.state[index]!]}`,
          role: "option",
          "data-key": stepKey(steps, index),
          "data-index": String(index),
        },
        el("span", { class: "kind" }, steps.kinds[steps.kind[index]!]!),
        el("span", { class: "at" }, `line ${steps.line[index]}`),
        el("span", { class: "label" }, steps.labels[steps.label[index]!]!),
        el("span", { class: "took" }, took === undefined ? "" : formatDuration(took)),
        el("span", { class: "retries" }, retries > 0 ? `${retries} retr${retries === 1 ? "y" : "ies"}` : ""),
      );
    });
    container.addEventListener("click", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>(".step");
      if (row !== null) this.select(Number(row.dataset["index"]), true);
    });
    container.addEventListener("keydown", (event) => {
      const moves: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };
      let next: number | undefined;
      if (event.key in moves) next = this.selected + moves[event.key]!;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = steps.count - 1;
      if (next === undefined) return;
      event.preventDefault();
      this.select(Math.max(0, Math.min(steps.count - 1, next)), true);
    });
    return container;
  }

  private took(index: number): number | undefined {
    const start = this.run.steps.start[index];
    const end = this.run.steps.end[index];
    return start === null || start === undefined || end === null || end === undefined ? undefined : end - start;
  }

  /** Selects a step: its heading at once, what it sent and got when the details come. */
  private select(index: number, reveal: boolean): void {
    this.selected = index;
    this.list?.setSelected(index, reveal);
    const detail = document.getElementById("detail")!;
    const { steps } = this.run;
    if (index >= steps.count) {
      detail.replaceChildren(el("p", {}, "No steps yet."));
      return;
    }
    const key = stepKey(steps, index);
    const state = STEP_STATES[steps.state[index]!];
    const view = el(
      "div",
      { class: "step-detail", "data-key": key },
      el("h3", {}, `${steps.kinds[steps.kind[index]!]} · line ${steps.line[index]} · ${state}`),
      el("p", { class: "label" }, steps.labels[steps.label[index]!]!),
    );
    const loading = el("p", { class: "loading" }, "Loading…");
    view.append(loading);
    detail.replaceChildren(view);
    const facts = { took: this.took(index), cost: steps.cost[index] ?? null, retries: steps.retries[index]! };
    void this.details(index, key)
      .then((loaded) => {
        if (!view.isConnected) return;
        loading.replaceWith(
          ...(loaded === undefined ? [el("p", {}, "No details in this run's trace.")] : detailBody(facts, loaded)),
        );
      })
      .catch(() => {
        if (view.isConnected) loading.replaceWith(el("p", { class: "error" }, "The step's details could not be read."));
      });
  }

  private graph(): HTMLElement {
    const holder = el("div", { id: "graph" }, "The graph is drawn when you scroll to it.");
    // Our own SVG writer's output (every text escaped), drawn by the server from the program: a large
    // program's graph takes a while to lay out and to draw, so only when it comes into view.
    const draw = (): void => {
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
      } else holder.textContent = "";
    };
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        draw();
      },
      { rootMargin: "200px" },
    );
    observer.observe(holder);
    return holder;
  }

  private poll(): void {
    const base = `${this.api!}run/${encodeURIComponent(this.run.runId)}`;
    const tick = async (): Promise<void> => {
      try {
        const version = await (await fetch(`${base}/version`)).text();
        if (version !== this.run.version) {
          this.run = (await (await fetch(base)).json()) as RunView;
          this.details = this.detailSource(undefined);
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
