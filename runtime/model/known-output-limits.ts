/**
 * The output limits (`max_tokens`) of Anthropic's models, as Anthropic's models overview lists them:
 * what a session on Anthropic's own API uses without asking the Models API first. A model that is not
 * here is looked up (output-limits.ts). Dated ids are listed beside their aliases.
 */
export const knownOutputLimits: Readonly<Record<string, number>> = Object.freeze({
  "claude-fable-5-2": 128_000,
  "claude-fable-5-1": 128_000,
  "claude-fable-5": 128_000,
  "claude-opus-5-5": 128_000,
  "claude-opus-5": 128_000,
  "claude-sonnet-5-5": 128_000,
  "claude-sonnet-5": 128_000,
  "claude-haiku-5-5": 128_000,
  "claude-opus-4-8": 128_000,
  "claude-opus-4-7": 128_000,
  "claude-opus-4-6": 128_000,
  "claude-sonnet-4-6": 128_000,
  "claude-opus-4-5": 64_000,
  "claude-opus-4-5-20251101": 64_000,
  "claude-sonnet-4-5": 64_000,
  "claude-sonnet-4-5-20250929": 64_000,
  "claude-haiku-4-5": 64_000,
  "claude-haiku-4-5-20251001": 64_000,
  "claude-opus-4-1": 32_000,
  "claude-opus-4-1-20250805": 32_000,
  "claude-opus-4-0": 32_000,
  "claude-opus-4-20250514": 32_000,
  "claude-sonnet-4-0": 64_000,
  "claude-sonnet-4-20250514": 64_000,
  "claude-3-7-sonnet-latest": 64_000,
  "claude-3-7-sonnet-20250219": 64_000,
  "claude-3-5-haiku-latest": 8_192,
  "claude-3-5-haiku-20241022": 8_192,
  "claude-3-haiku-20240307": 4_096,
});
