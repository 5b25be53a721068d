/**
 * What one step sent and got, asked for when the page selects it: its requests (system prompt,
 * messages, answer, tool calls and results, each a text id), usage, result, reason and error, with
 * the texts they name.
 */
import type { Usage } from "../../runtime/index.js";
import type { TraceRequestRecord } from "../../runtime/stored-runs.js";
import { readRunSteps, readTexts, requestsOf, type RunStep } from "./run-steps.js";

export type StepRequest = Omit<TraceRequestRecord, "e" | "s">;

export interface StepDetail {
  readonly key: string;
  readonly usage: readonly Usage[];
  /** Text ids. */
  readonly value?: string;
  readonly reason?: string;
  readonly error?: string;
  readonly requests: readonly StepRequest[];
}

/** A step's detail with the texts it names: what the server answers for one step. */
export interface StepDetailWithTexts {
  readonly detail: StepDetail;
  readonly texts: { readonly [id: string]: string };
}

export function readStepDetail(runId: string, dir: string, key: string): StepDetailWithTexts | undefined {
  const step = readRunSteps(runId, dir).steps.find((candidate) => candidate.key === key);
  if (step === undefined) return undefined;
  const detail = stepDetailOf(step);
  const all = readTexts(dir);
  const texts: Record<string, string> = {};
  for (const id of textIds(detail)) {
    const text = all.get(id);
    if (text !== undefined) texts[id] = text;
  }
  return { detail, texts };
}

export function stepDetailOf(step: RunStep): StepDetail {
  return {
    key: step.key,
    usage: step.usage,
    ...(step.value === undefined ? {} : { value: step.value }),
    ...(step.reason === undefined ? {} : { reason: step.reason }),
    ...(step.error === undefined ? {} : { error: step.error }),
    requests: requestsOf(step.requestLines).map(({ e: _e, s: _s, ...request }) => request),
  };
}

/** The ids of the texts a step's detail names. */
export function textIds(detail: StepDetail): string[] {
  const ids: string[] = [];
  const add = (id: string | undefined): void => {
    if (id !== undefined) ids.push(id);
  };
  for (const request of detail.requests) {
    add(request.tools);
    request.system.forEach(add);
    for (const message of request.messages) for (const block of message.content) add(blockText(block));
    for (const block of request.answer ?? []) add(blockText(block));
  }
  add(detail.value);
  return ids;
}

function blockText(block: object): string | undefined {
  if ("text" in block) return block.text as string;
  if ("input" in block) return block.input as string;
  if ("result" in block) return block.result as string;
  return undefined;
}
