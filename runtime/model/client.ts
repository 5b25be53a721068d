/**
 * The Anthropic SDK client of a run, and the pace of the API it reaches (pace.ts). Runs with the same
 * connection settings share one client: a fresh client's first requests are markedly slower, and an
 * app that calls `run()` often should not pay that each time. The cache lives in memory only.
 */
import Anthropic from "@anthropic-ai/sdk";
import { paceFor, type Pace } from "./pace.js";
import { sdkTelemetryOption, withoutSdkContent } from "../telemetry/sdk-spans.js";
import type { RunOptions } from "../types.js";

const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_TRANSPORT_RETRIES = 2;
const MAX_CACHED_CLIENTS = 16;

export interface Connection {
  readonly client: Anthropic;
  /** Shared by every run that reaches the same base URL with the same key; none for a ready client. */
  readonly pace?: Pace;
}

const connections = new Map<string, Connection>();

export function connectionFor(options: RunOptions): Connection {
  // A ready client's requests cannot be gated: only the run's cap applies (documented in options.ts).
  if (options.client !== undefined) return { client: withoutSdkContent(options.client) };
  // The SDK reads these variables when the options leave them out, so they are part of the identity.
  const apiKey = options.apiKey ?? process.env["ANTHROPIC_API_KEY"] ?? null;
  const baseURL = options.baseURL ?? process.env["ANTHROPIC_BASE_URL"] ?? null;
  const authToken = process.env["ANTHROPIC_AUTH_TOKEN"] ?? null;
  const pace = paceFor(baseURL, apiKey ?? authToken);
  if (options.fetch !== undefined) return { client: createClient(options, pace), pace };
  const key = JSON.stringify([
    apiKey,
    baseURL,
    authToken,
    options.maxRetries ?? DEFAULT_TRANSPORT_RETRIES,
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  ]);
  let connection = connections.get(key);
  if (connection === undefined) {
    connection = { client: createClient(options, pace), pace };
    if (connections.size >= MAX_CACHED_CLIENTS) connections.delete(connections.keys().next().value as string);
    connections.set(key, connection);
  }
  return connection;
}

/**
 * The model's credentials a run sends: `RunOptions.apiKey`, or a ready client's key and token (an
 * application that gives `client` keeps its key out of the environment and the options, and it must
 * be withheld from tools and redacted all the same). The first is the run's key.
 */
export function modelCredentials(options: RunOptions): string[] {
  const given = [options.apiKey, options.client?.apiKey, options.client?.authToken];
  return [...new Set(given.filter((value): value is string => typeof value === "string" && value !== ""))];
}

function createClient(options: RunOptions, pace: Pace): Anthropic {
  return new Anthropic({
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(keylessServer(options) ? { defaultHeaders: { authorization: null } } : {}),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    fetch: pace.gate(options.fetch ?? globalThis.fetch),
    maxRetries: options.maxRetries ?? DEFAULT_TRANSPORT_RETRIES,
    timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    openTelemetry: sdkTelemetryOption(),
  });
}

/**
 * A compatible server reached without any key (a local model server): the SDK refuses to send a
 * request without credentials unless the header is explicitly left out.
 */
function keylessServer(options: RunOptions): boolean {
  const set = (name: string): boolean => (process.env[name] ?? "") !== "";
  const baseURL = options.baseURL ?? process.env["ANTHROPIC_BASE_URL"] ?? "";
  return (
    baseURL !== "" &&
    options.apiKey === undefined &&
    !set("ANTHROPIC_API_KEY") &&
    !set("ANTHROPIC_AUTH_TOKEN") &&
    !set("ANTHROPIC_PROFILE")
  );
}
