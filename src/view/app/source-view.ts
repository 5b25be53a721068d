/// <reference lib="dom" />
/**
 * The program's source with each line's state, how many times it ran and what it cost: a virtualized
 * list, like the steps (a long program opens as fast as a short one).
 */
import type { LineView } from "../run-view.js";
import { el, formatDollars } from "./dom.js";
import { VirtualList } from "./virtual-list.js";

const LINE_HEIGHT = 18;

export function sourceView(source: string, lines: readonly LineView[]): HTMLElement {
  const views = new Map(lines.map((view) => [view.line, view]));
  const texts = source.split("\n");
  const container = el("pre", { id: "source" });
  new VirtualList(container, texts.length, LINE_HEIGHT, (index) => lineView(index + 1, texts[index]!, views));
  return container;
}

function lineView(line: number, text: string, views: ReadonlyMap<number, LineView>): HTMLElement {
  const view = views.get(line);
  const state = view?.state;
  return el(
    "div",
    {
      class: `line${state === undefined ? "" : ` run-${state}`}`,
      "data-line": String(line),
      ...(state === undefined ? {} : { "data-state": state }),
    },
    el("span", { class: "number" }, String(line)),
    el("span", { class: "code" }, text === "" ? " " : text),
    view === undefined || view.runs === 0
      ? el("span")
      : el("span", { class: "runs" }, `${view.runs}×${view.cost > 0 ? ` ${formatDollars(view.cost)}` : ""}`),
  );
}
