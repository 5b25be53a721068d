/**
 * One GET of a program's raw text, with Node's built-in fetch. Whatever goes wrong (unreachable,
 * an HTTP error, bytes that are not UTF-8 or not a program, too many of them) is a RegistryError
 * whose message is one line; the CLI exits with EXIT.network for it.
 */
import { isUtf8 } from "node:buffer";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { parse } from "../phases/1-parse/index.js";
import { sameOrigin } from "./registry-token.js";

/** Larger than any real program (the biggest example is 20 KB), small enough to hold in memory. */
export const MAX_PROGRAM_BYTES = 1024 * 1024;
const TIMEOUT_MS = 30_000;

export class RegistryError extends Error {}

export interface Fetched {
  readonly url: string;
  readonly bytes: Buffer;
  readonly text: string;
}

export interface FetchOptions {
  /** The registry's base URL: only requests to its origin carry the token. */
  readonly registry: string;
  /** `PROSEC_REGISTRY_TOKEN`, sent as a bearer token; never written anywhere. */
  readonly token?: string;
  /** Why a token was held back from this registry (registry-token.ts), for the hint of a 401 or 403. */
  readonly tokenWithheld?: string;
}

export async function fetchProgram(url: string, options: FetchOptions): Promise<Fetched> {
  const authorized = options.token !== undefined && options.token !== "" && sameOrigin(url, options.registry);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: "text/plain", ...(authorized ? { authorization: `Bearer ${options.token}` } : {}) },
      // A token must not follow a redirect to another server.
      redirect: authorized ? "error" : "follow",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new RegistryError(`cannot fetch ${url}: ${reason(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    const hint =
      response.status === 401 || response.status === 403
        ? ` (${options.tokenWithheld ?? "set PROSEC_REGISTRY_TOKEN?"})`
        : "";
    throw new RegistryError(`cannot fetch ${url}: HTTP ${response.status} ${response.statusText}${hint}`.trimEnd());
  }
  const bytes = await readLimited(response, url);
  if (bytes.includes(0) || !isUtf8(bytes))
    throw new RegistryError(`${url} is not a program: its bytes are not UTF-8 text`);
  const text = bytes.toString("utf8");
  const parsed = parse(text);
  const firstError = parsed.diagnostics.find((diagnostic) => diagnostic.severity === "error");
  if (hasErrors(parsed.diagnostics) && firstError)
    throw new RegistryError(
      `${url} is not a program: line ${firstError.range.start.line}: ${firstError.message.split("\n")[0]}`,
    );
  return { url, bytes, text };
}

/** The body, refused past MAX_PROGRAM_BYTES (by its Content-Length, or while reading it). */
async function readLimited(response: Response, url: string): Promise<Buffer> {
  const tooLarge = () =>
    new RegistryError(`${url} is too large for a program (more than ${MAX_PROGRAM_BYTES / 1024 / 1024} MB)`);
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_PROGRAM_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += (chunk as Uint8Array).byteLength;
      if (size > MAX_PROGRAM_BYTES) throw tooLarge();
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
  } catch (error) {
    if (error instanceof RegistryError) throw error;
    throw new RegistryError(`cannot fetch ${url}: ${reason(error)}`);
  }
  return Buffer.concat(chunks);
}

/** The underlying cause in a few words (fetch wraps it: `fetch failed` → ECONNREFUSED ...). */
function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${TIMEOUT_MS / 1000} s`;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
