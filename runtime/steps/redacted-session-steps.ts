/**
 * A session's turns and tool calls as its store sees them: whatever they throw reaches the store with
 * the run's secrets removed. DBOS checkpoints a failed turn's error whole, its stack and an API
 * error's body included, and a model server may echo the request's key in that body.
 */
import type { Secrets } from "../tools/secrets.js";
import type { SessionSteps } from "../types.js";

export function redactedSessionSteps(steps: SessionSteps, secrets: Secrets): SessionSteps {
  return {
    turn: (ask) => steps.turn(secrets.failureRedacted(ask)),
    toolCall: (call, start, run, repeatable) =>
      steps.toolCall(
        call,
        secrets.failureRedacted(start),
        (delivered) => secrets.failureRedacted(() => run(delivered))(),
        repeatable,
      ),
    once: (name, effect) => steps.once(name, secrets.failureRedacted(effect)),
  };
}
