/**
 * Every type of the runtime, from one place: the contract with generated code (`types/contract.ts`,
 * `types/program.ts`), run events, `RunOptions`, durability and tools.
 *
 * These modules import nothing of the runtime but its vocabulary, so no module of the runtime takes
 * part in an import cycle through them (a test checks).
 */
export type {
  Backoff,
  EmptyAnswer,
  FailurePolicy,
  JoinStrategy,
  ModelName,
  PermissionAsked,
  PermissionKind,
  PermissionMode,
  PersistScope,
} from "./vocabulary.js";
export type * from "./types/program.js";
export type * from "./types/events.js";
export type * from "./types/contract.js";
export type * from "./types/run-options.js";
export type * from "./types/durability.js";
export type * from "./types/tools.js";
