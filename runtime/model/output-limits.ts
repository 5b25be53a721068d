/**
 * A model's output limit, the default `max_tokens` of a session's calls, kept off the path of the
 * first request where it can be:
 *
 * - on Anthropic's own API, a model in the table that ships with prosec (known-output-limits.ts) is
 *   not asked about at all;
 * - any other model, and every model of a compatible server (`ANTHROPIC_BASE_URL`, whose models may
 *   be anything), is asked of the Models API (`client.models.retrieve(id).max_tokens`) once per
 *   client and model, and the answer kept per server on disk when the run has a project to keep it
 *   in (`.prose/cache/model-limits.json`, `limitsFile`): later runs do not wait for it.
 *
 * A server that does not say (many Anthropic-compatible servers have no Models API: a 404) gets 8,192,
 * which every current model accepts, kept like an answer; a look-up that failed otherwise (the network,
 * a time-out) is not kept, so the server is asked again next run.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
// The error classes alone: the SDK's index loads its whole client, and `prosec check` reaches this module.
import { NotFoundError } from "@anthropic-ai/sdk/core/error";
import type Anthropic from "@anthropic-ai/sdk";
import { isAbortError } from "../errors.js";
import { makeDirectory } from "../make-directory.js";
import { knownOutputLimits } from "./known-output-limits.js";

export const FALLBACK_MAX_TOKENS = 8192;
const LOOKUP_TIMEOUT_MS = 10_000;
/** How long a limit read from a server is believed: a server's model may change under the same name. */
const KEPT_FOR_MS = 24 * 60 * 60_000;
const ANTHROPIC_API_HOST = "api.anthropic.com";

const limits = new WeakMap<Anthropic, Map<string, Promise<number>>>();

export function outputLimit(
  client: Anthropic,
  model: string,
  signal: AbortSignal,
  limitsFile?: string,
): Promise<number> {
  let byModel = limits.get(client);
  if (byModel === undefined) limits.set(client, (byModel = new Map()));
  let limit = byModel.get(model);
  if (limit === undefined) {
    const server = serverOf(client);
    const known = server === ANTHROPIC_API_HOST ? knownOutputLimits[model] : undefined;
    const kept = known ?? (limitsFile === undefined ? undefined : keptLimit(limitsFile, server, model));
    limit = kept !== undefined ? Promise.resolve(kept) : lookUp(client, model, signal, server, limitsFile);
    byModel.set(model, limit);
    // A lookup cancelled with its run says nothing about the model: the next run asks again.
    limit.catch(() => byModel.delete(model));
  }
  return limit;
}

async function lookUp(
  client: Anthropic,
  model: string,
  signal: AbortSignal,
  server: string,
  limitsFile: string | undefined,
): Promise<number> {
  try {
    const info = await client.models.retrieve(model, {}, { signal, timeout: LOOKUP_TIMEOUT_MS, maxRetries: 0 });
    const reported: unknown = info.max_tokens;
    const limit =
      typeof reported === "number" && Number.isInteger(reported) && reported > 0 ? reported : FALLBACK_MAX_TOKENS;
    if (limitsFile !== undefined) keepLimit(limitsFile, server, model, limit);
    return limit;
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw error;
    // A server without a Models API (or that does not know the model) says so the same way next time.
    if (error instanceof NotFoundError && limitsFile !== undefined)
      keepLimit(limitsFile, server, model, FALLBACK_MAX_TOKENS);
    return FALLBACK_MAX_TOKENS;
  }
}

/** The server a client reaches, as the cache names it: its base URL without credentials, query or trailing slash. */
function serverOf(client: Anthropic): string {
  try {
    const url = new URL(client.baseURL);
    if (url.host === ANTHROPIC_API_HOST && (url.pathname === "/" || url.pathname === "")) return ANTHROPIC_API_HOST;
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return client.baseURL;
  }
}

type KeptLimits = Record<string, Record<string, { readonly maxTokens: number; readonly at: number }>>;

function readKept(file: string): KeptLimits {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as KeptLimits) : {};
  } catch {
    return {};
  }
}

function keptLimit(file: string, server: string, model: string): number | undefined {
  const entry = readKept(file)[server]?.[model];
  if (entry === undefined || !Number.isInteger(entry.maxTokens) || entry.maxTokens <= 0) return undefined;
  return Date.now() - entry.at < KEPT_FOR_MS ? entry.maxTokens : undefined;
}

/** Adds one limit to the file (read again just before, written whole through a rename); a failure only loses the entry. */
function keepLimit(file: string, server: string, model: string, maxTokens: number): void {
  const kept = readKept(file);
  kept[server] = { ...kept[server], [model]: { maxTokens, at: Date.now() } };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    makeDirectory(dirname(file));
    writeFileSync(temporary, `${JSON.stringify(kept, null, 2)}\n`);
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Under a path that is not a folder there is nothing to remove.
    }
  }
}
