/**
 * Waiting for an event a test cannot subscribe to (a line in a child's output, a row in a database, a
 * file appearing, a process gone): the condition is polled until it holds or the deadline passes. The
 * deadline is generous, for a loaded machine; a test never sleeps a fixed time instead.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  timeoutMs = 60_000,
): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
