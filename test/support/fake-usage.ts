/**
 * How the fake Messages API server accounts a request's usage, the way Anthropic documents it:
 *
 * - Tokens are estimated from size: a quarter of the characters of each part (tool definitions, system
 *   blocks, message blocks), rounded up. Not a tokenizer, but proportional, which is what cost tests need.
 * - Prompt caching: the prefix is tools → system → messages, cut into blocks. A block with `cache_control`
 *   is a breakpoint (at most 4, else a 400). For each breakpoint the cache is looked up at it and at up to
 *   19 block boundaries before it; the longest prefix found (alive: used within the TTL) is read
 *   (`cache_read_input_tokens`). The prefix up to the last breakpoint is written when it was not read
 *   (`cache_creation_input_tokens`: its tokens beyond what was read). Prefixes shorter than the model's
 *   minimum cacheable length are neither written nor read. `input_tokens` is the rest.
 * - A write becomes visible when the reply is sent, as a cache entry becomes available once the response
 *   begins: requests sent side by side all miss.
 *
 * Imports nothing but Node built-ins (the benchmarks transpile it alone).
 */
import { createHash } from "node:crypto";

export interface AccountedUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
}

export interface CacheOptions {
  /** Default true. Off, `cache_control` is ignored and every input token is `input_tokens`. */
  readonly caching?: boolean;
  /** Default five minutes, refreshed by every read. */
  readonly cacheTtlMs?: number;
  /** The model's minimum cacheable prefix, in tokens (default: the documented table below). */
  readonly cacheMinimumTokens?: (model: string) => number;
  /** The clock (tests move it to expire entries). */
  readonly now?: () => number;
}

/** The documented minimum cacheable lengths; unknown versions of a family take its latest known value. */
export function documentedMinimum(model: string): number {
  const id = model.toLowerCase();
  if (/opus-4-[5-9]|opus-(?:[5-9]|\d{2})/.test(id)) return 4096;
  if (/haiku-4-[5-9]|haiku-(?:[5-9]|\d{2})/.test(id)) return 4096;
  if (/haiku/.test(id)) return 2048;
  if (/sonnet-4-[6-9]|sonnet-(?:[5-9]|\d{2})/.test(id)) return 2048;
  return 1024;
}

export const MAX_BREAKPOINTS = 4;
const LOOKBACK_BLOCKS = 20;

/** The token estimate of a text: a quarter of its characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

interface Block {
  readonly tokens: number;
  readonly breakpoint: boolean;
  /** Hash of the prefix up to and including this block. */
  readonly hash: string;
}

/** Thrown for a request the real API refuses (more than four breakpoints). */
export class RequestRefused extends Error {}

export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(private readonly options: CacheOptions = {}) {}

  /**
   * The usage of a request with this body and this reply content, and the cache writes to commit
   * when the reply is sent.
   */
  account(body: Record<string, unknown>, content: readonly unknown[]): { usage: AccountedUsage; commit: () => void } {
    const blocks = blocksOf(body);
    const total = blocks.reduce((sum, block) => sum + block.tokens, 0);
    const output = Math.max(
      1,
      content.reduce<number>((sum, block) => sum + estimateTokens(contentText(block)), 0),
    );
    const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
    if (breakpoints.length > MAX_BREAKPOINTS)
      throw new RequestRefused(
        `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
      );
    if (this.options.caching === false || breakpoints.length === 0)
      return { usage: usage(total, 0, 0, output), commit: () => undefined };

    const now = this.now();
    const minimum = (this.options.cacheMinimumTokens ?? documentedMinimum)(String(body["model"] ?? ""));
    const prefix: number[] = [];
    blocks.reduce((sum, block, index) => (prefix[index] = sum + block.tokens), 0);
    let readEnd = -1;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= 0 && index > breakpoint - LOOKBACK_BLOCKS; index--) {
        if (index <= readEnd || prefix[index]! < minimum) break;
        if (this.alive(blocks[index]!.hash, now)) {
          readEnd = index;
          break;
        }
      }
    }
    const read = readEnd < 0 ? 0 : prefix[readEnd]!;
    if (readEnd >= 0) this.entries.set(blocks[readEnd]!.hash, now);
    const writes = breakpoints.filter((index) => index > readEnd && prefix[index]! >= minimum);
    const written = writes.length === 0 ? read : prefix[writes[writes.length - 1]!]!;
    const commit = (): void => {
      for (const index of writes) this.entries.set(blocks[index]!.hash, this.now());
    };
    return { usage: usage(total - written, written - read, read, output), commit };
  }

  private alive(hash: string, now: number): boolean {
    const used = this.entries.get(hash);
    return used !== undefined && now - used < (this.options.cacheTtlMs ?? 5 * 60_000);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function usage(input: number, written: number, read: number, output: number): AccountedUsage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
}

/** The request as the cache sees it: every tool, system block and message block, in order. */
function blocksOf(body: Record<string, unknown>): Block[] {
  const parts: Array<{ key: string; text: string; breakpoint: boolean }> = [];
  for (const tool of asArray(body["tools"])) {
    const definition = JSON.stringify(withoutCacheControl(tool));
    parts.push({ key: `tool:${definition}`, text: definition, breakpoint: hasCacheControl(tool) });
  }
  const system = body["system"];
  if (typeof system === "string") parts.push({ key: `system:${system}`, text: system, breakpoint: false });
  else
    for (const block of asArray(system))
      parts.push({ key: `system:${contentText(block)}`, text: contentText(block), breakpoint: hasCacheControl(block) });
  for (const message of asArray(body["messages"])) {
    const { role, content } = message as { role?: string; content?: unknown };
    if (typeof content === "string") parts.push({ key: `${role}:${content}`, text: content, breakpoint: false });
    else
      for (const block of asArray(content))
        parts.push({
          key: `${role}:${JSON.stringify(withoutCacheControl(block))}`,
          text: contentText(block),
          breakpoint: hasCacheControl(block),
        });
  }
  // Prefix hashes only matter when the request marks a breakpoint: most benchmark requests do not.
  const hashed = parts.some((part) => part.breakpoint);
  let hash = hashed
    ? createHash("sha256")
        .update(String(body["model"] ?? ""))
        .digest("hex")
    : "";
  return parts.map((part) => {
    if (hashed) hash = createHash("sha256").update(hash).update("\0").update(part.key).digest("hex");
    return { tokens: estimateTokens(part.text), breakpoint: part.breakpoint, hash };
  });
}

/**
 * A tool input given as JSON text and sent verbatim: an answer `JSON.stringify` cannot write (a model's
 * answer nested 100,000 deep), or bytes exactly as a model sent them.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A value as JSON text, any `RawJson` in it written as its text. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, each: unknown) =>
    each instanceof RawJson ? `\u0000raw:${raws.push(each.text) - 1}` : each,
  );
  return raws.length === 0
    ? text
    : text.replace(/"\\u0000raw:(\d+)"/g, (_marker, index: string) => raws[Number(index)]!);
}

function contentText(block: unknown): string {
  if (typeof block !== "object" || block === null) return "";
  const { type, text, input, content } = block as { type?: string; text?: unknown; input?: unknown; content?: unknown };
  if (type === "text" && typeof text === "string") return text;
  if (type === "tool_use") return jsonText(input ?? {});
  if (type === "tool_result")
    return typeof content === "string" ? content : asArray(content).map(contentText).join("\n");
  return JSON.stringify(block);
}

function hasCacheControl(block: unknown): boolean {
  return typeof block === "object" && block !== null && (block as { cache_control?: unknown }).cache_control != null;
}

function withoutCacheControl(block: unknown): unknown {
  if (!hasCacheControl(block)) return block;
  const { cache_control: _ignored, ...rest } = block as Record<string, unknown>;
  return rest;
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}
