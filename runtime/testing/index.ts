/**
 * `prosec/testing`: test compiled workflows without a model or a server. A run gets a scripted model
 * (answers keyed by binding name, call site or condition text, defaults for the rest) and keeps every
 * request it made, so a test can assert what a session or a judgment received. The runtime runs as in
 * production; only the model's replies are written in the test.
 */
export {
  runScripted,
  ScriptedDurability,
  ScriptedModel,
  type Defaults,
  type Script,
  type ScriptedRequest,
  type ScriptedRun,
  type ScriptedRunOptions,
} from "./scripted-model.js";
export { exampleOf } from "./schema-example.js";
export {
  sequence,
  toolCall,
  turns,
  type Answer,
  type Answers,
  type ScriptedKind,
  type ScriptedStep,
  type Sequence,
  type ToolCall,
  type Turn,
  type Turns,
} from "./answers.js";
