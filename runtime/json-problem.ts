/**
 * What is wrong with a JSON text, in JSON.parse's words but without the text itself. V8 quotes the
 * start of the input (`Unexpected token 'M', "MY_SECRET="... is not valid JSON`), and a file a
 * repository holds (`.mcp.json`, `prose.lock`, an eval case) may be a link to a secret, such as
 * `/proc/self/environ`, whose start would then reach a CI log.
 */
export function jsonProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoting = /^Unexpected token .*? is not valid JSON$/s;
  return quoting.test(message) ? "Unexpected token: the text is not valid JSON" : message.split("\n")[0]!;
}
