/**
 * A compiled module's `run()` in an app with no credentials (the README's `node dist/main.js` without
 * ANTHROPIC_API_KEY): the step fails saying what to set, not with the SDK's "Could not resolve
 * authentication method. Expected one of apiKey, authToken, credentials, config, or profile", which
 * names its constructor's options. The SDK refuses before any request, so nothing is sent anywhere.
 */
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ProseError, startRun } from "../../runtime/index.js";
import { program, at, temporaryFolder } from "./helpers.js";

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

it("a run with no key, token, profile or base URL fails its first session saying what to set", async () => {
  const home = temporaryFolder("prosec-no-key-home-");
  for (const name of Object.keys(process.env)) if (name.startsWith("ANTHROPIC_")) delete process.env[name];
  Object.assign(process.env, { HOME: home, XDG_CONFIG_HOME: join(home, ".config") });
  const run = startRun(program, {}, { cwd: home, maxRetries: 0 }, (rt) =>
    rt.session({ at: at(3), prompt: "Say hello" }),
  );
  const error = await run.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ProseError);
  expect((error as ProseError).message).toBe(
    `${program.source}:3:1: Say hello failed: no API key: set ANTHROPIC_API_KEY, or pass \`apiKey\` in the run options (ANTHROPIC_BASE_URL alone reaches a compatible server that takes none) (session "Say hello")`,
  );
});
