/**
 * The attribute names prosec's spans carry: the OpenTelemetry GenAI semantic conventions, copied
 * rather than imported (the runtime depends on `@opentelemetry/api` only), and prosec's own `prose.*`.
 */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  /** The older name of `gen_ai.provider.name`, still read by many backends. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  agentName: "gen_ai.agent.name",
  // Content: only with PROSEC_OTEL_CONTENT=1 (content.ts).
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
} as const;

export const PROSE = {
  runId: "prose.run_id",
  program: "prose.program",
  source: "prose.source",
  stepKey: "prose.step_key",
  kind: "prose.kind",
  line: "prose.line",
  column: "prose.column",
  agent: "prose.agent",
  binding: "prose.binding",
  status: "prose.status",
  branch: "prose.branch",
  branches: "prose.branches",
  attempt: "prose.attempt",
  resumed: "prose.resumed",
  // Content: only with PROSEC_OTEL_CONTENT=1.
  label: "prose.label",
} as const;

export const ERROR_TYPE = "error.type";
export const HTTP_STATUS = "http.response.status_code";
export const HTTP_RESEND_COUNT = "http.request.resend_count";
