/// <reference lib="dom" />
/**
 * The timeline: one lane per parallel branch, block call, loop branch or called program (a step's
 * lane is its key without its last segment), each step a bar on one time axis. The lanes are a
 * virtualized list: a long run has thousands.
 */
import { STEP_STATES, TOP_LANE, stepKey, type StepColumns } from "../step-columns.js";
import { el } from "./dom.js";
import { VirtualList } from "./virtual-list.js";

const LANE_HEIGHT = 20;

export function timeline(steps: StepColumns): HTMLElement {
  // Lanes in the order their first step started (the steps come in that order), each with its steps.
  const lanes = new Map<number, number[]>();
  let first = Infinity;
  let last = -Infinity;
  for (let index = 0; index < steps.count; index++) {
    const start = steps.start[index];
    if (start === null || start === undefined) continue;
    first = Math.min(first, start);
    last = Math.max(last, steps.end[index] ?? start);
    const lane = lanes.get(steps.lane[index]!);
    if (lane === undefined) lanes.set(steps.lane[index]!, [index]);
    else lane.push(index);
  }
  if (lanes.size === 0) return el("p", { id: "timeline" }, "No timings in this run's trace.");
  const span = Math.max(1, last - first);
  const percent = (ms: number): string => ((ms / span) * 100).toFixed(3);
  const rows = [...lanes];
  const container = el("div", { id: "timeline" });
  new VirtualList(container, rows.length, LANE_HEIGHT, (row) => {
    const [lane, indices] = rows[row]!;
    const name = steps.lanes[lane]!;
    return el(
      "div",
      { class: "lane", "data-lane": name },
      el("span", { class: "lane-name", title: name }, laneName(name)),
      el(
        "div",
        { class: "lane-bars" },
        ...indices.map((index) => {
          const start = steps.start[index]!;
          const end = steps.end[index] ?? last;
          return el("span", {
            class: `bar state-${STEP_STATES[steps.state[index]!]}`,
            "data-key": stepKey(steps, index),
            title: `${steps.labels[steps.label[index]!]} (line ${steps.line[index]})`,
            style: `left:${percent(start - first)}%;width:${Math.max(0.3, Number(percent(end - start)))}%`,
          });
        }),
      ),
    );
  });
  return container;
}

/** A lane's name: its last branch or call segment, or "main". */
function laneName(lane: string): string {
  if (lane === TOP_LANE || lane === "") return "main";
  return lane
    .split("/")
    .filter((segment) => segment !== "")
    .slice(-2)
    .join(" / ");
}
