/**
 * One GET of a program's raw text, through the checked GET `fetch_url` uses: each hop (redirects
 * included) is judged by `trusted-hosts.ts` before it connects. Whatever goes wrong (a refused host,
 * unreachable, an HTTP error, bytes that are not UTF-8 or not a program, too many of them) is a
 * RegistryError whose message is one line; the CLI exits with EXIT.network for it.
 */
import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { getChecked } from "../../runtime/host.js";
import { hasErrors } from "../diagnostics/diagnostic.js";
import { parse } from "../phases/1-parse/index.js";
import { RegistryError } from "./registry-error.js";
import { sameOrigin } from "./registry-token.js";
import { registryHopChecks } from "./trusted-hosts.js";

export { RegistryError } from "./registry-error.js";

/** Larger than any real program (the biggest example is 20 KB), small enough to hold in memory. */
export const MAX_PROGRAM_BYTES = 1024 * 1024;
const TIMEOUT_MS = 30_000;

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
  /** Hosts the user named (trusted-hosts.ts): fetched over http and at private addresses too. */
  readonly trustedHosts?: readonly string[];
}

export async function fetchProgram(url: string, options: FetchOptions): Promise<Fetched> {
  // The token goes to the registry's origin only, and only while every hop so far was there: not on a
  // redirect elsewhere, nor on one from elsewhere back to the registry (another server's choice of request).
  let atRegistry = options.token !== undefined && options.token !== "";
  const headers = (target: URL) => {
    atRegistry &&= sameOrigin(target.href, options.registry);
    return { accept: "text/plain", ...(atRegistry ? { authorization: `Bearer ${options.token}` } : {}) };
  };
  const deadline = AbortSignal.timeout(TIMEOUT_MS);
  let response: IncomingMessage;
  try {
    ({ response } = await getChecked(url, registryHopChecks(options.trustedHosts ?? []), deadline, headers));
  } catch (error) {
    if (error instanceof RegistryError) throw error;
    throw new RegistryError(`cannot fetch ${url}: ${reason(error, deadline)}`);
  }
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    response.destroy();
    const hint = status === 401 || status === 403 ? ` (${options.tokenWithheld ?? "set PROSEC_REGISTRY_TOKEN?"})` : "";
    throw new RegistryError(`cannot fetch ${url}: HTTP ${status} ${response.statusMessage ?? ""}${hint}`.trimEnd());
  }
  const bytes = await readLimited(response, url, deadline);
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
async function readLimited(response: IncomingMessage, url: string, deadline: AbortSignal): Promise<Buffer> {
  const tooLarge = () =>
    new RegistryError(`${url} is too large for a program (more than ${MAX_PROGRAM_BYTES / 1024 / 1024} MB)`);
  if (Number(response.headers["content-length"] ?? "0") > MAX_PROGRAM_BYTES) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_PROGRAM_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    response.destroy();
    if (error instanceof RegistryError) throw error;
    throw new RegistryError(`cannot fetch ${url}: ${reason(error, deadline)}`);
  }
  return Buffer.concat(chunks);
}

/** The underlying cause in a few words (ECONNREFUSED, ENOTFOUND ...). */
function reason(error: unknown, deadline: AbortSignal): string {
  if (deadline.aborted) return `no answer within ${TIMEOUT_MS / 1000} s`;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code;
  return error instanceof Error ? error.message : String(error);
}
