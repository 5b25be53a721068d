/**
 * `network:` patterns, matched against the parsed URL (WHATWG `URL`), never the URL's text: a pattern
 * is `[scheme://]host[:port][/path]`, where host is a glob on the host name (`*` is any text, dots
 * included), a missing port allows any port, and a missing path any path (`*` in a path is any text).
 * Query and fragment are never matched: `http://127.0.0.1/?x.example.org` has host 127.0.0.1. A
 * pattern with a path matches no URL whose path holds an encoded separator (`%2F`, `%5C`).
 *
 * Addresses that lead back into the machine or its network (loopback, private, link-local, unique
 * local, unspecified, multicast, reserved; IPv4 in any spelling the URL parser normalises, IPv6 and
 * IPv4 embedded in IPv6) are refused unless a pattern names the host exactly (no `*`): an IP literal,
 * `localhost`, or a host name the program's author trusts with what it resolves to.
 */
import { BlockList, isIP } from "node:net";
import { wildcardMatch } from "./wildcard.js";

export interface NetworkPattern {
  readonly scheme: "http:" | "https:" | undefined;
  /** Lower-case host glob; IPv6 in brackets, as `URL.host` writes it. */
  readonly host: string;
  readonly port: string | undefined;
  readonly path: string | undefined;
}

/** Parses a pattern; undefined for one that can never match (another scheme, no host). */
export function parseNetworkPattern(text: string): NetworkPattern | undefined {
  let rest = text.trim();
  let scheme: NetworkPattern["scheme"];
  const schemeEnd = rest.indexOf("://");
  if (schemeEnd >= 0) {
    const written = `${rest.slice(0, schemeEnd).toLowerCase()}:`;
    if (written !== "http:" && written !== "https:") return undefined;
    scheme = written;
    rest = rest.slice(schemeEnd + 3);
  }
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? undefined : rest.slice(slash).split(/[?#]/)[0];
  const [, written = "", portText] = /^(\[[^\]]*\]|[^:]*)(?::(\d+|\*))?$/.exec(authority) ?? [];
  let host = written.toLowerCase();
  const port = portText === "*" ? undefined : portText;
  if (host === "" || host.includes("@")) return undefined;
  if (!host.includes("*")) host = normalizeHost(host) ?? host;
  return { scheme, host, port, path: path === "/*" || path === "" ? undefined : path };
}

/**
 * A path separator written encoded (`%2F`, `%5C`): the URL parser keeps it as text, and many servers
 * decode it before they resolve `..` (`/repos/..%2Fadmin` is `/admin` to them).
 */
export const ENCODED_SEPARATOR = /%(2f|5c)/i;

/** Whether `url` (http or https) is one the pattern allows. */
export function matchesNetworkPattern(pattern: NetworkPattern, url: URL): boolean {
  if (pattern.scheme !== undefined && pattern.scheme !== url.protocol) return false;
  if (!wildcardMatch(pattern.host, url.hostname)) return false;
  if (pattern.port !== undefined && pattern.port !== effectivePort(url)) return false;
  if (pattern.path === undefined) return true;
  // A pattern that narrows the path holds only where the server reads the path as the parser did.
  return !ENCODED_SEPARATOR.test(url.pathname) && wildcardMatch(pattern.path, url.pathname);
}

/** Whether the pattern names this URL's host exactly (which lets it reach a private address). */
export function namesHost(pattern: NetworkPattern, url: URL): boolean {
  return !pattern.host.includes("*") && pattern.host === url.hostname && matchesNetworkPattern(pattern, url);
}

/** The address without brackets when the host is an IP literal, else undefined. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 127],
  // NAT64's local-use prefix (RFC 8215): what it carries is translated inside the network, so all of it.
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether an address points into the machine or a private network. IPv6 forms that carry an IPv4
 * address (mapped `::ffff:a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that address; the local-use NAT64 prefix
 * `64:ff9b:1::/48` is internal as a whole.
 */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) return internal.check(embedded, "ipv4");
  return internal.check(address, "ipv6");
}

function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  const word = (index: number): number => groups[index]!;
  const v4 = (high: number, low: number): string => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (count: number): boolean => groups.slice(0, count).every((group) => group === 0);
  if (zeros(5) && word(5) === 0xffff) return v4(word(6), word(7));
  // SIIT's IPv4-translated form, `::ffff:0:a.b.c.d`.
  if (zeros(4) && word(4) === 0xffff && word(5) === 0) return v4(word(6), word(7));
  if (zeros(6) && (word(6) !== 0 || word(7) > 1)) return v4(word(6), word(7));
  if (word(0) === 0x64 && word(1) === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return v4(word(6), word(7));
  if (word(0) === 0x2002) return v4(word(1), word(2));
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIPv6(address: string): number[] {
  let text = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string | undefined): number[] =>
    part ? part.split(":").map((group) => parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function effectivePort(url: URL): string {
  return url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
}

function normalizeHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
