/**
 * The journal seam. Every model-facing step (session, judgment, choice, extraction, runtime input)
 * has a deterministic site (`StepAddress.site`, address/); the run asks the journal for the site
 * before the step and records the result after it, before the next step starts. A resumed run with
 * the same journal therefore replays finished steps without calling the model.
 *
 * The in-memory journal below is the default; the file journal (`.prose/runs/`) implements the same two
 * methods. Both sit behind `JournalStepStore` (durability.ts).
 */
import { TransientConversation } from "./conversation.js";
import type { Conversation, Journal, RecordedStep } from "../types.js";

export class MemoryJournal implements Journal {
  readonly steps = new Map<string, RecordedStep>();
  /** The turns of sessions not finished yet (a finished session's record replaces them). */
  readonly conversations = new Map<string, TransientConversation>();

  get(site: string): Promise<RecordedStep | undefined> {
    return Promise.resolve(this.steps.get(site));
  }

  put(site: string, step: RecordedStep): Promise<void> {
    this.steps.set(site, step);
    this.conversations.delete(site);
    return Promise.resolve();
  }

  conversation(site: string): Conversation {
    let conversation = this.conversations.get(site);
    if (conversation === undefined) this.conversations.set(site, (conversation = new TransientConversation()));
    return conversation;
  }
}
