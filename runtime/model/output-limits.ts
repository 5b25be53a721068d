/**
 * A model's output limit, the default `max_tokens` of a session's calls: what the SDK's Models API
 * says of it (`client.models.retrieve(id).max_tokens`), asked once per client and model. A server
 * that does not say (many Anthropic-compatible servers have no Models API) gets 8,192, which every
 * current model accepts.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { isAbortError } from "../errors.js";

export const FALLBACK_MAX_TOKENS = 8192;
const LOOKUP_TIMEOUT_MS = 10_000;

const limits = new WeakMap<Anthropic, Map<string, Promise<number>>>();

export function outputLimit(client: Anthropic, model: string, signal: AbortSignal): Promise<number> {
  let byModel = limits.get(client);
  if (byModel === undefined) limits.set(client, (byModel = new Map()));
  let limit = byModel.get(model);
  if (limit === undefined) {
    limit = lookUp(client, model, signal);
    byModel.set(model, limit);
    // A lookup cancelled with its run says nothing about the model: the next run asks again.
    limit.catch(() => byModel.delete(model));
  }
  return limit;
}

async function lookUp(client: Anthropic, model: string, signal: AbortSignal): Promise<number> {
  try {
    const info = await client.models.retrieve(model, {}, { signal, timeout: LOOKUP_TIMEOUT_MS, maxRetries: 0 });
    const reported: unknown = info.max_tokens;
    return typeof reported === "number" && Number.isInteger(reported) && reported > 0 ? reported : FALLBACK_MAX_TOKENS;
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw error;
    return FALLBACK_MAX_TOKENS;
  }
}
