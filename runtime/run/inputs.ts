/**
 * The program's inputs as a run meets them: an answer given ahead (the run's inputs) answers an
 * input's first occurrence; an occurrence after that, or one not answered ahead, is asked
 * (`onInput`, or on DBOS a message to the run), and with no one to ask the run waits for input.
 * Answers asked for are steps, so a resumed run replays them; the answer `prosec answer` records is one.
 */
import { ProseError, WaitingForInput } from "../errors.js";
import type { InputDefinition, Site, Value } from "../types.js";
import type { RunScope } from "../kernel/scope.js";
import type { StepContext } from "../kernel/step-context.js";

export interface InputScope extends RunScope {
  /** The inputs answered ahead (read when an input is reached: a resumed run's come from its folder). */
  readonly inputs: { readonly [name: string]: Value };
}

export class RunInputs {
  /** Inputs whose first occurrence was reached: an answer given ahead answers only that one. */
  private readonly reached = new Set<string>();

  constructor(private readonly scope: InputScope) {}

  async input(context: StepContext, at: Site, definition: InputDefinition): Promise<Value> {
    const { name } = definition;
    const { core, inputs, options, program } = this.scope;
    if (!this.reached.has(name) && Object.hasOwn(inputs, name) && inputs[name] !== undefined) {
      this.reached.add(name);
      this.occurrence(context, at, name);
      return this.bound(context, at, definition, inputs[name]);
    }
    // `input name: <value>`: not answered ahead, it takes its default and is never asked.
    if (Object.hasOwn(definition, "default") && !this.reached.has(name)) {
      this.reached.add(name);
      this.occurrence(context, at, name);
      return this.bound(context, at, definition, definition.default ?? null);
    }
    this.reached.add(name);
    const ask = options.onInput;
    const durability = core.durability;
    if (ask === undefined && durability.awaitAnswer !== undefined) {
      const key = this.occurrence(context, at, name);
      const answer = await durability.awaitAnswer(
        key,
        { name, prompt: definition.prompt, key, at, ...this.asker() },
        definition.timeoutSeconds,
      );
      if (answer === undefined) throw this.timedOut(at, definition);
      return this.bound(context, at, definition, answer.value);
    }
    const asked = { binding: name, text: definition.prompt, details: () => definition };
    const result = await core.step(context, "input", at, `The input "${name}"`, asked, async (_signal, key) => {
      if (ask !== undefined) return { value: await ask(definition), usage: [] };
      const seconds = definition.timeoutSeconds;
      // A resumed run keeps the deadline its first wait set.
      const deadline =
        this.scope.folder?.deadlineOf(key) ??
        (seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000).toISOString());
      if (deadline !== undefined && Date.parse(deadline) <= Date.now()) throw this.timedOut(at, definition);
      throw new WaitingForInput(
        [
          {
            name,
            prompt: definition.prompt,
            key,
            at,
            ...this.asker(),
            ...(deadline === undefined ? {} : { deadline }),
          },
        ],
        program.source,
      );
    });
    return this.bound(context, at, definition, result.value);
  }

  /** The program that asks (a called program's own, so a wait names its file, not its caller's). */
  private asker(): { readonly program: string; readonly source: string } {
    return { program: this.scope.program.name, source: this.scope.program.source };
  }

  /**
   * Numbers an input's occurrence that is not a step (answered ahead, or awaited on DBOS) like one,
   * so later occurrences keep their addresses; its site.
   */
  private occurrence(context: StepContext, at: Site, name: string): string {
    const { core } = this.scope;
    return core.addresses.input(context, at, name);
  }

  /** An input whose `(timeout: N)` passed unanswered: an error, which a `catch:` may handle. */
  private timedOut(at: Site, definition: InputDefinition): ProseError {
    return this.scope.core.error(
      `No answer to the input "${definition.name}" came within its timeout of ${definition.timeoutSeconds} s.`,
      at,
    );
  }

  private bound(context: StepContext, at: Site, definition: InputDefinition, value: Value): Value {
    this.scope.folder?.binding(at, definition.name, value, context.block?.executionId, "input");
    return value;
  }
}
