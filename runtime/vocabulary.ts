/**
 * The words of the language that name runtime behaviour: permission kinds and modes, backoffs,
 * join strategies, failure policies and model names. Analysis checks programs against these
 * lists, lowering writes them into generated code, and the runtime's types are made from them, so
 * a word added here is accepted, lowered and typed at once. A leaf: it imports nothing.
 */

/** The accesses `permissions:` governs (`env:` names the environment variables tools get). */
export const permissionKinds = ["read", "write", "execute", "bash", "network", "env"] as const;
export type PermissionKind = (typeof permissionKinds)[number];

/** What `permissions:` may say of an access: `read: deny` (of `env:`, only `deny`). */
export const permissionModes = ["allow", "deny", "prompt"] as const;
export type PermissionMode = (typeof permissionModes)[number];

/** The accesses that `prompt` puts to `RunOptions.onPermission` one path or command at a time. */
export type PermissionAsked = "read" | "write" | "execute";

/** The words a permission takes instead of a list: `env:` is a list of names or `deny`. */
export function permissionWords(kind: PermissionKind): readonly string[] {
  return kind === "env" ? ["deny"] : permissionModes;
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
