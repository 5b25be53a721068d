/**
 * Prompt and response text on spans: only when the user opts in with `PROSEC_OTEL_CONTENT=1` (the
 * GenAI conventions name no variable of their own), then redacted as the run folder is (the run's
 * `Secrets`). The shapes follow the GenAI conventions' `gen_ai.input.messages` and
 * `gen_ai.output.messages`: a JSON array of `{ role, parts }`.
 */
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages/messages.js";

export const CONTENT_VARIABLE = "PROSEC_OTEL_CONTENT";

/** Whether the environment opts in to text on spans. */
export function contentOptedIn(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[CONTENT_VARIABLE]?.trim().toLowerCase();
  return value === "1" || value === "true";
}

type Redact = (text: string) => string;

type Part =
  | { readonly type: "text"; readonly content: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: unknown }
  | { readonly type: "tool_call_response"; readonly id: string; readonly response: string }
  | { readonly type: string };

/** The system prompt as one text, redacted. */
export function systemText(params: MessageCreateParamsNonStreaming, redact: Redact): string {
  const system = params.system;
  if (system === undefined) return "";
  return redact(typeof system === "string" ? system : system.map((block) => block.text).join("\n"));
}

export function inputMessages(messages: readonly MessageParam[], redact: Redact): string {
  return JSON.stringify(messages.map((message) => ({ role: message.role, parts: parts(message.content, redact) })));
}

export function outputMessages(message: Message, redact: Redact): string {
  return JSON.stringify([
    {
      role: "assistant",
      parts: parts(message.content as ContentBlockParam[], redact),
      finish_reason: message.stop_reason ?? "",
    },
  ]);
}

/** A value (tool arguments, a result) as redacted text. */
export function redactedJson(value: unknown, redact: Redact): string {
  return redact(typeof value === "string" ? value : JSON.stringify(value ?? null));
}

function parts(content: string | readonly ContentBlockParam[], redact: Redact): Part[] {
  if (typeof content === "string") return [{ type: "text", content: redact(content) }];
  return content.map((block): Part => {
    switch (block.type) {
      case "text":
        return { type: "text", content: redact(block.text) };
      case "tool_use":
        return {
          type: "tool_call",
          id: redact(block.id),
          name: redact(block.name),
          arguments: redactedJson(block.input, redact),
        };
      case "tool_result":
        return {
          type: "tool_call_response",
          id: redact(block.tool_use_id),
          response: redactedJson(
            typeof block.content === "string"
              ? block.content
              : (block.content ?? []).map((inner) => (inner.type === "text" ? inner.text : `[${inner.type}]`)).join(""),
            redact,
          ),
        };
      default:
        // Images, documents, thinking: named, never copied.
        return { type: redact(String((block as { type: unknown }).type)) };
    }
  });
}
