/**
 * Which Claude model a `.prose` model name means. Programs say `sonnet`, `opus` or `haiku`; the table
 * below maps them to model ids. Precedence: `RunOptions.models`, then `PROSEC_MODEL_<NAME>` in the
 * environment (e.g. `PROSEC_MODEL_SONNET=claude-sonnet-4-5`), then this table. A name that is in none
 * of them (a full model id, or a model of an Anthropic-compatible server) is sent as written.
 */
import type { ModelTable } from "../types.js";
import type { ModelName } from "../vocabulary.js";

export const defaultModels: Readonly<Record<ModelName, string>> = Object.freeze({
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5",
});

/** The model used when neither the session nor its agent names one. */
export const defaultModelName: ModelName = "sonnet";

export function resolveModel(
  name: string | undefined,
  overrides: ModelTable | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const key = (name ?? defaultModelName).trim();
  return (
    overrides?.[key] ??
    env[`PROSEC_MODEL_${key.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`] ??
    (defaultModels as ModelTable)[key] ??
    key
  );
}
