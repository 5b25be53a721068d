/**
 * The durability seam. Every model-facing step (session, judgment, choice, extraction, runtime input)
 * has a deterministic key (see `step-context.ts`); the run asks the journal for the key before the
 * step and records the result after it, before the next step starts. A resumed run with the same
 * journal therefore replays finished steps without calling the model.
 *
 * The in-memory journal below is the default; the file journal (`.prose/runs/`) implements the same two
 * methods. Both sit behind `JournalDurability` (durability.ts).
 */
import { TransientConversation } from "./conversation.js";
import type { Conversation, Journal, RecordedStep } from "../types.js";

export class MemoryJournal implements Journal {
  readonly steps = new Map<string, RecordedStep>();
  /** The turns of sessions not finished yet (a finished session's record replaces them). */
  readonly conversations = new Map<string, TransientConversation>();

  get(key: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(key));
  }

  put(key: string, step: RecordedStep): Promise<void> {
    this.steps.set(key, step);
    this.conversations.delete(key);
    return Promise.resolve();
  }

  conversation(key: string): Conversation {
    let conversation = this.conversations.get(key);
    if (conversation === undefined) this.conversations.set(key, (conversation = new TransientConversation()));
    return conversation;
  }
}
