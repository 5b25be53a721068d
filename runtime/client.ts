/**
 * The Anthropic SDK client of a run. Runs with the same connection settings share one client: a
 * fresh client's first requests are markedly slower, and an app that calls `run()` often should not
 * pay that each time. The cache lives in memory only.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { RunOptions } from "./types.js";

const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_TRANSPORT_RETRIES = 2;
const MAX_CACHED_CLIENTS = 16;

const clients = new Map<string, Anthropic>();

export function clientFor(options: RunOptions): Anthropic {
  if (options.client !== undefined) return options.client;
  if (options.fetch !== undefined) return createClient(options);
  // The SDK reads these variables when the options leave them out, so they are part of the identity.
  const key = JSON.stringify([
    options.apiKey ?? process.env["ANTHROPIC_API_KEY"] ?? null,
    options.baseURL ?? process.env["ANTHROPIC_BASE_URL"] ?? null,
    process.env["ANTHROPIC_AUTH_TOKEN"] ?? null,
    options.maxRetries ?? DEFAULT_TRANSPORT_RETRIES,
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  ]);
  let client = clients.get(key);
  if (client === undefined) {
    client = createClient(options);
    if (clients.size >= MAX_CACHED_CLIENTS) clients.delete(clients.keys().next().value as string);
    clients.set(key, client);
  }
  return client;
}

function createClient(options: RunOptions): Anthropic {
  return new Anthropic({
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    maxRetries: options.maxRetries ?? DEFAULT_TRANSPORT_RETRIES,
    timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  });
}
