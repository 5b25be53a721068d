/// <reference lib="dom" />
/** A step's details as the page shows them: its timing, tokens, cost and retries, each request and answer. */
import { el, formatDollars, formatDuration, formatNumber, textBlock } from "./dom.js";
import type { TracedBlock } from "../../../runtime/stored-runs.js";
import type { LoadedDetail } from "./details.js";

export interface StepFacts {
  readonly took?: number;
  readonly cost: number | null;
  readonly retries: number;
}

export function detailBody(facts: StepFacts, { detail, text }: LoadedDetail): HTMLElement[] {
  const textOf = (id: string | undefined): string => (id === undefined ? "" : text(id));
  const usage = detail.usage.map(
    (entry) =>
      `${entry.model}: ${formatNumber(entry.inputTokens)} in, ${formatNumber(entry.outputTokens)} out, ${formatNumber(entry.cacheReadTokens ?? 0)} cache read, ${formatNumber(entry.cacheWriteTokens ?? 0)} cache write`,
  );
  return [
    el(
      "dl",
      {},
      el("dt", {}, "Took"),
      el("dd", {}, facts.took === undefined ? "—" : formatDuration(facts.took)),
      el("dt", {}, "Tokens"),
      el("dd", { class: "usage" }, usage.join("; ") || "—"),
      el("dt", {}, "Cost"),
      el("dd", { class: "step-cost" }, facts.cost === null ? "—" : formatDollars(facts.cost)),
      el("dt", {}, "Retries"),
      el("dd", { class: "step-retries" }, String(facts.retries)),
    ),
    detail.error === undefined ? el("span") : el("p", { class: "error step-error" }, detail.error),
    detail.reason === undefined
      ? el("span")
      : el(
          "div",
          { class: "evidence" },
          el("h4", {}, "Answer and reason"),
          textBlock(`${textOf(detail.value)}\n${detail.reason}`),
        ),
    ...detail.requests.map((request) =>
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
            ...message.content.map((block) => blockView(block, text)),
          ),
        ),
        request.error !== undefined
          ? el("p", { class: "error" }, request.error)
          : el(
              "div",
              { class: "answer" },
              el("h4", {}, "Answer"),
              ...(request.answer ?? []).map((block) => blockView(block, text)),
            ),
      ),
    ),
    detail.value === undefined || detail.reason !== undefined
      ? el("span")
      : el("div", { class: "result" }, el("h4", {}, "Result"), textBlock(textOf(detail.value))),
  ];
}

function blockView(block: TracedBlock, text: (id: string) => string): HTMLElement {
  if ("tool" in block)
    return el(
      "div",
      { class: "tool-call" },
      el("strong", {}, `tool call: ${block.tool}`),
      textBlock(text(block.input)),
    );
  if ("result" in block)
    return el(
      "div",
      { class: `tool-result${block.error === true ? " failed" : ""}` },
      el("strong", {}, "tool result"),
      textBlock(text(block.result)),
    );
  return textBlock(text(block.text));
}
