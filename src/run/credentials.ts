/**
 * Whether `prosec run` can reach a model at all, asked before a run folder is made: without it the
 * first session would fail with the SDK's "Could not resolve authentication method", leaving a run to
 * resume that can never succeed.
 */
import { APIError } from "@anthropic-ai/sdk/core/error";
import { defaultCredentials } from "@anthropic-ai/sdk/lib/credentials/credential-chain";
import { maskedUrl } from "../masked-url.js";

const setIn = (name: string): boolean => (process.env[name] ?? "") !== "";

/**
 * True with a key or token in the environment, a compatible server's address (which may take none),
 * or credentials the SDK finds on its own (a profile or federation, its credential chain).
 */
export async function modelAccessConfigured(): Promise<boolean> {
  if (setIn("ANTHROPIC_API_KEY") || setIn("ANTHROPIC_AUTH_TOKEN") || setIn("ANTHROPIC_BASE_URL")) return true;
  try {
    return (await defaultCredentials({ baseURL: "https://api.anthropic.com", fetch })) !== null;
  } catch {
    // A profile that cannot be read is still one the user chose: the SDK explains what is wrong with it.
    return true;
  }
}

export const noCredentialsMessage = "no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a compatible server)";

/**
 * What to say when the model's server could not be reached (after the SDK's retries): the SDK says
 * only "Connection error.", so where it tried (its password and secret-looking parameters masked)
 * and what chose that address.
 */
export function unreachableServerMessage(): string {
  const configured = process.env["ANTHROPIC_BASE_URL"]?.trim() ?? "";
  const server = configured === "" ? "https://api.anthropic.com" : maskedUrl(configured);
  const chosen = configured === "" ? "" : " (ANTHROPIC_BASE_URL)";
  return `cannot reach the model server at ${server}${chosen}: check that it runs and that this machine can connect to it`;
}

/**
 * What to say when the model's server refused a request for what the user set up, not for what the
 * program asked: a key it does not accept (401), a key without access (403), a model it does not
 * serve (404, the API's `not_found_error` with `model: <id>`). The step's message quotes the server's
 * JSON; this names the setting to change. Undefined for any other failure.
 */
export function refusedAccessMessage(error: unknown): string | undefined {
  const refusal = apiErrorIn(error);
  if (refusal === undefined) return undefined;
  const server = (process.env["ANTHROPIC_BASE_URL"]?.trim() ?? "") === "" ? "the Anthropic API" : "the model server";
  const key =
    setIn("ANTHROPIC_AUTH_TOKEN") && !setIn("ANTHROPIC_API_KEY") ? "ANTHROPIC_AUTH_TOKEN" : "ANTHROPIC_API_KEY";
  if (refusal.status === 401)
    return `${server} refused the credentials (401): check ${key}${setIn(key) ? " (it is set, to a key that server does not accept)" : ""}`;
  if (refusal.status === 403) return `${server} refused the request (403): the key in ${key} has no access to it`;
  const configured = process.env["ANTHROPIC_BASE_URL"]?.trim() ?? "";
  // The SDK adds `/v1/messages` itself: an OpenAI-style base URL ending in /v1 asks for /v1/v1/messages.
  if (refusal.status === 404 && /\/v1\/?$/.test(configured))
    return `the model server answered 404: ANTHROPIC_BASE_URL ends with /v1, which the SDK adds itself: set it to ${maskedUrl(configured.replace(/\/v1\/?$/, ""))}`;
  const model = /\bmodel: ([^"\s]+)/.exec(refusal.message)?.[1];
  if (refusal.status === 404 && model !== undefined)
    return `${server} has no model ${JSON.stringify(model)} (404): check the id a \`model:\` of the program gives, or set the id sonnet, opus or haiku stands for (PROSEC_MODEL_SONNET=...)`;
  return undefined;
}

function apiErrorIn(error: unknown): APIError | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof APIError) return cause;
  return undefined;
}
