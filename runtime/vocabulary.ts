/**
 * The words of the language that name runtime behaviour: the properties of agents and sessions,
 * the modifiers of constructs, permission kinds and modes, backoffs, join strategies, failure
 * policies and model names. Analysis checks programs against these lists, lowering writes them
 * into generated code, and the runtime's types are made from them. The switches over properties
 * and modifiers end in `exhaustive()`, so a word added here fails type-checking until analysis and
 * lowering handle it. A leaf: it imports nothing.
 */

/** The properties of agents and sessions; any other is passed to the model as a note (`extra`). */
export const propertyNames = [
  "model",
  "prompt",
  "context",
  "retry",
  "backoff",
  "persist",
  "skills",
  "permissions",
  "empty",
  "returns",
] as const;
export type PropertyName = (typeof propertyNames)[number];

/** The modifiers each construct takes: `parallel (on-fail: "continue")`, `loop until ... (max: 5)`. */
export const modifierKeys = {
  parallel: ["on-fail", "count"],
  loop: ["max"],
  for: ["max"],
  block: ["max_depth"],
  input: ["timeout"],
} as const;
export type ModifierOwner = keyof typeof modifierKeys;
export type ModifierKey = (typeof modifierKeys)[ModifierOwner][number];

/**
 * The accesses `permissions:` governs (`env:` names the environment variables tools get, `mcp:` the
 * `server/tool` globs of MCP tools the agent is offered).
 */
export const permissionKinds = ["read", "write", "execute", "bash", "network", "env", "mcp"] as const;

/**
 * The model's credentials: never given to a tool, even when a program's `env:` names them (a program
 * may be someone else's, and a tool that holds the key can send it anywhere its permissions reach).
 * `env:` naming one is error P059; the runtime withholds them in any case (tools/environment.ts).
 */
export const MODEL_CREDENTIALS: readonly string[] = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];
export type PermissionKind = (typeof permissionKinds)[number];

/** What `permissions:` may say of an access: `read: deny` (of `env:`, only `deny`). */
export const permissionModes = ["allow", "deny", "prompt"] as const;
export type PermissionMode = (typeof permissionModes)[number];

/** The accesses that `prompt` puts to `RunOptions.onPermission` one path or command at a time. */
export type PermissionAsked = "read" | "write" | "execute";

/**
 * The words a permission takes instead of a list: `env:` is a list or `deny`, `mcp:` a list, `deny`
 * or `prompt` (every tool of every server, each call approved by a person).
 */
export function permissionWords(kind: PermissionKind): readonly string[] {
  return kind === "env" ? ["deny"] : kind === "mcp" ? ["deny", "prompt"] : permissionModes;
}

/** `backoff:` between a session's retries. */
export const backoffs = ["none", "linear", "exponential"] as const;
export type Backoff = (typeof backoffs)[number];

/** `empty:` of an agent or session: whether an empty answer is its result (`allow`) or a failure (`deny`, the default). */
export const emptyAnswers = ["allow", "deny"] as const;
export type EmptyAnswer = (typeof emptyAnswers)[number];

/** How a `parallel:` block joins: every branch, the first to succeed, or `count:` of them. */
export const joinStrategies = ["all", "first", "any"] as const;
export type JoinStrategy = (typeof joinStrategies)[number];

/** `on-fail:` of a `parallel:` block. */
export const failurePolicies = ["fail-fast", "continue", "ignore"] as const;
export type FailurePolicy = (typeof failurePolicies)[number];

/** Where `persist:` keeps an agent's memory besides the run (`true`) or a path of its own. */
export const persistScopes = ["project", "user"] as const;
export type PersistScope = (typeof persistScopes)[number];

/** The model names a program may write bare (`model: opus`); anything else is a quoted model id. */
export const modelNames = ["sonnet", "opus", "haiku"] as const;
export type ModelName = (typeof modelNames)[number];

/** Whether `word` is one of `words` (narrowing it to their type). */
export function isOneOf<const Words extends readonly string[]>(
  words: Words,
  word: string | undefined,
): word is Words[number] {
  return word !== undefined && (words as readonly string[]).includes(word);
}

/**
 * The end of a switch over one of these lists: `word` is `never` once every word has its case, so a
 * word added to a list without a case fails type-checking there.
 */
export function exhaustive(word: never): never {
  throw new Error(`unhandled word: ${String(word)}`);
}
