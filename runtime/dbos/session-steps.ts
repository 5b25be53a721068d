/**
 * A session on DBOS: its loop runs in workflow code (DBOS steps do not nest), and each model turn and
 * each tool call is a checkpoint of its own, named after the session's site. A recovered
 * workflow runs the loop again: a turn that finished reads its response from the checkpoint instead
 * of asking the model, and a tool call that finished reads its result instead of running.
 *
 * Before a tool call runs, a marker checkpoint records that it started. A recovered execution that
 * finds the marker but not the call's own checkpoint knows the crash cut the call off: it applies
 * the journal's rule for such calls (`unfinishedCall` in durable/conversation.ts), as a file run does.
 *
 * A call an explicit `prompt` puts to a person (tools/approvals.ts) records, as its checkpoint, that it
 * waits for approval, and the workflow waits in the database as for an input (`awaitAnswer`):
 * `prosec approve` / `prosec deny` send the answer. The call then runs with the answer delivered,
 * behind a started marker of its own, so the approved call runs once: a worker killed while it
 * waited leaves the wait to be replayed by the next one, and one killed during the approved call
 * leaves a call that was cut off, under the rule above.
 *
 * Eliding old tool results, the per-turn call limit and continuations are pure functions of the
 * checkpointed responses and results, so the replayed loop sends the same conversation again. The
 * turn and tool boundaries (a run stopped, the step's time limit) are checked inside the checkpoints:
 * a session that ended at one ends there again when replayed, and a stopped run records nothing.
 */
import type { ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages/messages.js";
import { unfinishedCall } from "../durable/conversation.js";
import { WaitingForApproval } from "../tools/approvals.js";
import type { DeliveredAnswer, ModelTurn, Question, SessionSteps, Value } from "../types.js";
import { outsideTimeLimit } from "../signals.js";
import { checkpoint, type RunStop } from "./checkpoint.js";

/** Waits in the database for a person's answer to `question` (DbosDurability.awaitAnswer). */
export type AnswerWait = (question: Question) => Promise<{ readonly value: Value }>;

/** A call's checkpoint when it stopped for a person's approval before it ran. */
interface AwaitingApproval {
  readonly awaitingApproval: Question;
}

export class DbosSessionSteps implements SessionSteps {
  constructor(
    /** The session step's site: the prefix of its checkpoints' names. */
    private readonly site: string,
    private readonly run: RunStop,
    private readonly awaitApproval: AnswerWait,
    /** The session step's signal: its time limit stops while a person decides. */
    private readonly signal?: AbortSignal,
  ) {}

  async turn(ask: () => Promise<ModelTurn>): Promise<ModelTurn> {
    return (await checkpoint(`${this.site} turn`, ask, this.run)).value;
  }

  async toolCall(
    call: ToolUseBlock,
    start: () => Promise<void>,
    run: (delivered?: DeliveredAnswer) => Promise<ToolResultBlockParam>,
    repeatable = false,
  ): Promise<ToolResultBlockParam> {
    const marker = await checkpoint(
      `${this.site} tool-started`,
      async () => {
        await start();
        return { id: call.id, name: call.name };
      },
      this.run,
    );
    // The marker is a checkpoint of an earlier execution: if this call's own checkpoint is missing
    // (the body below runs), that execution died while the call ran.
    const cutOff = !marker.ran;
    const result = await checkpoint<ToolResultBlockParam | AwaitingApproval>(
      `${this.site} tool`,
      async () => {
        try {
          return (cutOff ? unfinishedCall(call, repeatable) : undefined) ?? (await run());
        } catch (error) {
          if (error instanceof WaitingForApproval) return { awaitingApproval: error.questions[0]! };
          throw error;
        }
      },
      this.run,
    );
    if (!("awaitingApproval" in result.value)) return result.value;
    const question = result.value.awaitingApproval;
    const { value: answer } = await outsideTimeLimit(this.signal, () => this.awaitApproval(question));
    return this.decided(call, run, repeatable, { answer, key: question.key });
  }

  /** The call a person answered: run with the answer, once (its own started marker, as above). */
  private async decided(
    call: ToolUseBlock,
    run: (delivered?: DeliveredAnswer) => Promise<ToolResultBlockParam>,
    repeatable: boolean,
    delivered: DeliveredAnswer,
  ): Promise<ToolResultBlockParam> {
    const marker = await checkpoint(`${this.site} approved-tool-started`, () => Promise.resolve(call.id), this.run);
    const cutOff = !marker.ran;
    const result = await checkpoint(
      `${this.site} tool`,
      async () => (cutOff ? unfinishedCall(call, repeatable) : undefined) ?? run(delivered),
      this.run,
    );
    return result.value;
  }

  async once<T extends Value>(name: string, effect: () => Promise<T>): Promise<T> {
    return (await checkpoint(`${this.site} ${name}`, effect, this.run)).value;
  }
}
