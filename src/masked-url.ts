/**
 * A URL as prosec may print it: a database's or a trace collector's address can carry a password in
 * its user info or a token in its query, and neither belongs in a terminal or a log.
 */

/** Query parameters whose values are secrets: `password`, `access_token`, `api-key`, `secret`, `Authorization`, ... */
const SECRET_PARAMETER = /pass|token|key|secret|auth/i;

/** `url` with its password and the values of secret-looking query parameters replaced by `***`; text that is not a URL is hidden whole. */
export function maskedUrl(url: string): string {
  if (!URL.canParse(url)) return "(not a URL)";
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = "***";
  for (const name of new Set(parsed.searchParams.keys()))
    if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, "***");
  return parsed.toString();
}
