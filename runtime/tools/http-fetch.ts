/**
 * `fetch_url`'s GET, with the destination checked where it matters: at connect time. Each hop's URL
 * is checked against the permissions, its host is resolved once (through `RunOptions.resolveHost`
 * when given), the addresses are checked, and the connection goes to exactly the address checked,
 * so a name that resolves elsewhere a moment later (DNS rebinding) gains nothing. Redirects are
 * followed here, hop by hop, each one checked like the first.
 *
 * Bounded in time and size: the whole call, redirects included, has one deadline (default 30 s,
 * `RunOptions.fetchTimeoutMs`), so a server dripping a byte every few seconds cannot hold it; a body
 * is read up to 1 MB; a redirect's body is never read (its connection is destroyed, not drained, so
 * an endless one cannot keep the process alive).
 */
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { ToolPermissions } from "../types.js";
import { literalAddress } from "./network-rules.js";

/** What fetching needs of the permissions. */
export type FetchChecks = Pick<ToolPermissions, "checkUrl" | "checkAddresses" | "resolveHost" | "fetchTimeoutMs">;

export interface FetchedPage {
  readonly status: number;
  readonly url: string;
  readonly body: string;
}

const MAX_REDIRECTS = 5;
const MAX_BODY_BYTES = 1_000_000;
const IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function fetchChecked(url: string, checks: FetchChecks, cancel: AbortSignal): Promise<FetchedPage> {
  const limit = checks.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(limit);
  try {
    return await fetchWithin(url, checks, AbortSignal.any([cancel, deadline]));
  } catch (error) {
    if (deadline.aborted && !cancel.aborted)
      throw new Error(`${url} did not finish within ${limit / 1000} s (RunOptions.fetchTimeoutMs).`, { cause: error });
    throw error;
  }
}

async function fetchWithin(url: string, checks: FetchChecks, signal: AbortSignal): Promise<FetchedPage> {
  const { response, url: target } = await getChecked(url, checks, signal);
  return { status: response.statusCode ?? 0, url: target.href, body: await readBody(response) };
}

/** What each hop of a checked GET asks: is the URL allowed, are the addresses it resolves to. */
export type HopChecks = Pick<ToolPermissions, "checkUrl" | "checkAddresses" | "resolveHost">;

/**
 * The response at the end of `url`'s redirects, each hop checked and connected to the address
 * checked; the caller reads or destroys its body. `headers` gives each hop's own headers (a
 * credential for one origin is not sent to the next).
 */
export async function getChecked(
  url: string,
  checks: HopChecks,
  signal: AbortSignal,
  headers: (target: URL) => Readonly<Record<string, string>> = () => ({}),
): Promise<{ readonly response: IncomingMessage; readonly url: URL }> {
  let next = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const target = await checks.checkUrl(next);
    const literal = literalAddress(target.hostname);
    const addresses = literal !== undefined ? [literal] : await (checks.resolveHost ?? systemResolve)(target.hostname);
    if (addresses.length === 0) throw new Error(`${target.hostname} has no address.`);
    checks.checkAddresses(target, addresses);
    const response = await get(target, addresses[0]!, signal, headers(target));
    const location = response.headers.location;
    if (REDIRECTS.has(response.statusCode ?? 0) && location !== undefined) {
      response.destroy();
      next = new URL(location, target).href;
      continue;
    }
    return { response, url: target };
  }
  throw new Error(`${url} redirected more than ${MAX_REDIRECTS} times.`);
}

export async function systemResolve(hostname: string): Promise<readonly string[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

function get(
  url: URL,
  address: string,
  signal: AbortSignal,
  headers: Readonly<Record<string, string>>,
): Promise<IncomingMessage> {
  const family = isIP(address);
  // Hands the connection the address that was checked, whatever the host name resolves to now.
  const pinned = ((_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else (callback as (error: null, address: string, family: number) => void)(null, address, family);
  }) as LookupFunction;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: "GET",
        agent: false,
        lookup: pinned,
        signal,
        timeout: IDLE_TIMEOUT_MS,
        headers: { "user-agent": "prosec", accept: "*/*", ...headers },
      },
      resolve,
    );
    outgoing.on("timeout", () =>
      outgoing.destroy(new Error(`${url.host} sent nothing for ${IDLE_TIMEOUT_MS / 1000} s.`)),
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_BODY_BYTES) {
      response.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString("utf8");
}
