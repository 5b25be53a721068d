/**
 * Which registry `PROSEC_REGISTRY_TOKEN` belongs to: the one `PROSEC_REGISTRY` names, else the
 * default registry. Never one that only `prose.lock` names: a lockfile is committed, so a pull
 * request could point its `registry` at a server of its own and collect the token from CI.
 */
import { DEFAULT_REGISTRY } from "../references.js";

export interface RegistryToken {
  /** The token, when `registry` is the registry it belongs to. */
  readonly token?: string;
  /** Set when a token was held back from `registry`: what to do about it, for a 401 or 403. */
  readonly withheld?: string;
}

export function registryToken(registry: string, chosen: string | undefined, token: string | undefined): RegistryToken {
  if (token === undefined || token === "") return {};
  if (sameOrigin(registry, chosen || DEFAULT_REGISTRY)) return { token };
  return {
    withheld: `PROSEC_REGISTRY_TOKEN goes only to PROSEC_REGISTRY, else ${DEFAULT_REGISTRY}, not to a registry only prose.lock names: set PROSEC_REGISTRY=${registry} if you trust it`,
  };
}

export function sameOrigin(url: string, registry: string): boolean {
  try {
    return new URL(url).origin === new URL(registry).origin;
  } catch {
    return false;
  }
}
