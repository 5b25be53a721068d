/**
 * The Anthropic SDK's own spans. From 1.12 the SDK emits a `CLIENT` span per API call
 * (`anthropic.messages.create`) whenever an OpenTelemetry provider is registered, and with
 * `ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content` it puts the prompts and answers on it,
 * unredacted. prosec keeps the SDK's spans (they carry the HTTP details and nest under prosec's
 * `chat` spans, run-telemetry.ts) but never in content mode: the text a prosec span may carry is
 * redacted first (content.ts), and only when the user opts in with `PROSEC_OTEL_CONTENT=1`.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { OpenTelemetryOptions } from "@anthropic-ai/sdk";

/**
 * The `openTelemetry` option of a client prosec makes: the SDK's variables as the SDK reads them
 * (`ANTHROPIC_OPEN_TELEMETRY=false` turns its spans off, `ANTHROPIC_OPEN_TELEMETRY_PROPAGATION=false`
 * its `traceparent` header), except the content mode, which is always `metadata_only`.
 */
export function sdkTelemetryOption(env: NodeJS.ProcessEnv = process.env): OpenTelemetryOptions {
  return {
    propagation: env["ANTHROPIC_OPEN_TELEMETRY_PROPAGATION"]?.toLowerCase() !== "false",
    traces: {
      enabled: env["ANTHROPIC_OPEN_TELEMETRY"]?.toLowerCase() !== "false",
      contentMode: "metadata_only",
    },
  };
}

/** A client the application made, as prosec uses it: a copy without the content mode when it had it. */
export function withoutSdkContent(client: Anthropic): Anthropic {
  const option = client.openTelemetry as Anthropic["openTelemetry"] | undefined;
  const traces = option?.traces;
  if (option === undefined || typeof traces !== "object" || traces.contentMode !== "content") return client;
  return client.withOptions({ openTelemetry: { ...option, traces: { ...traces, contentMode: "metadata_only" } } });
}
