/**
 * Whether `prosec run` can reach a model at all, asked before a run folder is made: without it the
 * first session would fail with the SDK's "Could not resolve authentication method", leaving a run to
 * resume that can never succeed.
 */
import { defaultCredentials } from "@anthropic-ai/sdk/lib/credentials/credential-chain";

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
