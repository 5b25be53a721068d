/**
 * Which hosts a registry command may fetch from. A fetched program's `use`s, and a committed
 * `prose.lock`'s URLs and registry, are written by someone else: followed blindly, they would turn
 * the user's machine (or CI) into a fetcher of its own network (`http://169.254.169.254/…`, a
 * service on loopback). So a host the user did not name is fetched only over https and only at a
 * public address: its name is resolved, every address checked, and the connection made to the
 * address checked (DNS rebinding gains nothing); each redirect hop is judged the same way.
 *
 * A host the user named is trusted with plain http and private addresses: `PROSEC_REGISTRY`'s,
 * a URL given on the command line (`prosec add http://10.0.0.5/x.prose`), and the hosts listed in
 * `PROSEC_TRUSTED_HOSTS` (`host` for any port, `host:port` for one).
 */
import type { HopChecks } from "../../runtime/host.js";
import { isInternalAddress, literalAddress } from "../../runtime/host.js";
import { RegistryError } from "./registry-error.js";

/** The hosts (`host` or `host:port`; a URL gives its host) of `PROSEC_TRUSTED_HOSTS`, a comma- or space-separated list. */
export function trustedHostsSetting(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[\s,]+/)
    .filter((entry) => entry !== "")
    .map((entry) => (entry.includes("://") && URL.canParse(entry) ? new URL(entry).host : entry.toLowerCase()));
}

/** The host (`host:port`) of each URL in `urls` that parses; a registry reference names none. */
export function hostsOf(urls: Iterable<string | undefined>): string[] {
  const hosts: string[] = [];
  for (const url of urls) if (url !== undefined && URL.canParse(url)) hosts.push(new URL(url).host);
  return hosts;
}

/** The checks of each hop of a registry fetch, trusting `trusted` (hosts as `hostsOf` and the setting give them). */
export function registryHopChecks(trusted: readonly string[]): HopChecks {
  const named = (url: URL): boolean => trusted.includes(url.host) || trusted.includes(url.hostname);
  return {
    resolveHost: undefined,
    async checkUrl(text: string): Promise<URL> {
      const url = new URL(text);
      if (url.protocol !== "https:" && url.protocol !== "http:")
        throw new RegistryError(`${text}: only http and https URLs are fetched`);
      if (url.protocol === "http:" && !named(url))
        throw new RegistryError(`${refused(url)}: a host you did not name is fetched over https only${hint(url)}`);
      return url;
    },
    checkAddresses(url: URL, addresses: readonly string[]): void {
      if (named(url)) return;
      const internal = addresses.find(isInternalAddress);
      if (internal === undefined) return;
      const where = literalAddress(url.hostname) === undefined ? `${url.hostname} resolves to ${internal}, ` : "";
      throw new RegistryError(
        `${refused(url)}: ${where}a loopback, private or reserved address, fetched only from a host you named${hint(url)}`,
      );
    },
  };
}

function refused(url: URL): string {
  return `refused to fetch ${url.href}`;
}

function hint(url: URL): string {
  return ` (set PROSEC_REGISTRY, or PROSEC_TRUSTED_HOSTS=${url.host}, if you trust it)`;
}
