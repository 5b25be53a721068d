/**
 * What a `use` names: a local path (`./x.prose`), a registry reference (`alice/research`, the same
 * as `@alice/research`) or a URL. Registry references and URLs are remote: they are fetched by an
 * explicit command and read from their vendored copies under `prose_modules/`.
 */
import { join } from "node:path";

/** The registry a reference resolves against unless `PROSEC_REGISTRY` or the lockfile names another. */
export const DEFAULT_REGISTRY = "https://p.prose.md";

/** The folder, beside `prose.lock`, that holds the vendored programs. */
export const VENDOR_FOLDER = "prose_modules";

const REGISTRY_REF = /^@?(\w[\w.-]*)\/(\w[\w.-]*)$/;
const URL_REF = /^https?:\/\/\S+$/;

/** A `./` or `../` path, relative to the importing file. */
export function isLocalUse(usePath: string): boolean {
  return /^\.\.?\//.test(usePath);
}

/** A registry reference or a URL. */
export function isRemoteUse(usePath: string): boolean {
  return REGISTRY_REF.test(usePath) || URL_REF.test(usePath);
}

/**
 * Whether a command line's program names a remote program: a URL, or a registry reference. A name
 * ending in `.prose` is a file (`prosec run src/review.prose`), missing or not: registry slugs have
 * no extension, and a mistyped path must say "no such file", not fetch from the registry.
 */
export function namesRemoteProgram(argument: string): boolean {
  return URL_REF.test(argument) || (REGISTRY_REF.test(argument) && !argument.endsWith(".prose"));
}

/** The lockfile's key for a remote `use`: `alice/research` for `@alice/research` too; a URL as written. */
export function refKey(usePath: string): string {
  const match = REGISTRY_REF.exec(usePath);
  return match ? `${match[1]}/${match[2]}` : usePath;
}

/**
 * Whether `key` can be a lockfile key: a registry reference as `refKey` spells it (`alice/research`)
 * or a URL that parses. Only these have a `vendoredPath` inside `prose_modules/`; a key read from a
 * lockfile someone else wrote (`../../src/app.prose`) must be checked against this before it names a file.
 */
export function isLockfileKey(key: string): boolean {
  if (!URL_REF.test(key)) return REGISTRY_REF.test(key) && refKey(key) === key;
  return URL.canParse(key);
}

/** Where a remote program is fetched from: `<registry>/<handle>/<slug>`, or the URL itself. */
export function refUrl(key: string, registry: string): string {
  return URL_REF.test(key) ? key : `${registry.replace(/\/+$/, "")}/${key}`;
}

/**
 * The vendored copy's path under `prose_modules/`: `alice/research.prose`, or for a URL
 * `-/<host>/<path>` (a port joins the host with `_`; `.prose` is added when the path lacks it).
 */
export function vendoredPath(key: string): string {
  if (!URL_REF.test(key)) return join(...key.split("/")) + ".prose";
  const url = new URL(key);
  const host = url.port === "" ? url.hostname : `${url.hostname}_${url.port}`;
  const segments = decodeURIComponent(url.pathname)
    .split("/")
    .filter((segment) => segment !== "" && segment !== "." && segment !== "..");
  const path = join("-", host, ...(segments.length === 0 ? ["index"] : segments));
  return path.endsWith(".prose") ? path : `${path}.prose`;
}

/** The strings of a program's `use` statements, found without parsing (to follow and hash imports). */
export function useStrings(source: string): string[] {
  return [...source.matchAll(/^[ \t]*use[ \t]+"([^"\n]*)"/gm)].map((match) => match[1]!);
}
