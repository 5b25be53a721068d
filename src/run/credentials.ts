/**
 * Whether `prosec run` can reach a model at all, asked before a run folder is made: without it the
 * first session would fail with the SDK's "Could not resolve authentication method", leaving a run to
 * resume that can never succeed.
 */
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
