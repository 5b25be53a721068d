/**
 * A scripted answer as the Messages API streams it (server-sent events), for a request that asks to
 * stream: the events that build `message` and nothing else, in one chunk.
 */

interface ScriptedMessage {
  readonly content: readonly (
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  )[];
  readonly stop_reason: string;
  readonly usage: { readonly input_tokens: number; readonly output_tokens: number };
  readonly [key: string]: unknown;
}

export function streamedAnswer(message: ScriptedMessage): Response {
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null } }],
  ];
  message.content.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    const delta =
      block.type === "text"
        ? { type: "text_delta", text: block.text }
        : { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) };
    events.push(
      ["content_block_start", { type: "content_block_start", index, content_block: start }],
      ["content_block_delta", { type: "content_block_delta", index, delta }],
      ["content_block_stop", { type: "content_block_stop", index }],
    );
  });
  events.push(
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: message.usage.output_tokens },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  );
  const body = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}
