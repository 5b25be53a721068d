/**
 * `Runtime.session` and `resume`: a session of an agent, under its `retry:`, with the persistent
 * agent's memory read before and recorded after (memory.ts), and its result joining the trail when
 * it is not bound.
 */
import { homedir } from "node:os";
import { relative } from "node:path";
import type { RunScope } from "../kernel/scope.js";
import type { RunCore } from "../kernel/core.js";
import type { StepContext } from "../kernel/step-context.js";
import type { RememberedSession, SessionRequest, Site, Value } from "../types.js";
import { text } from "../values/expressions.js";
import { asEnvironmentError, describeError, EnvironmentError } from "../errors.js";
import { PLAIN_SESSION_STEPS } from "../durable/conversation.js";
import { memoryFolder, readMemory, RecordedSegments, recordSession } from "./memory.js";
import { redactedSessionSteps } from "./redacted-session-steps.js";
import { withRetries } from "./retry.js";
import { traceRetry } from "../telemetry/run-telemetry.js";
import { effectiveSettings, runAgent, sessionAsk, sessionLabel, sessionTask } from "./session.js";

const DEFAULT_RETRY_DELAY_MS = 1000;

export class AgentSessions {
  private readonly memoryWrites = new Map<string, Promise<void>>();
  private readonly segments = new RecordedSegments();

  constructor(private readonly scope: RunScope) {}

  async run(context: StepContext, request: SessionRequest, resume: boolean): Promise<Value> {
    const { core, options, runDir } = this.scope;
    const label = sessionLabel(request);
    const agent = request.agent?.name;
    const settings = effectiveSettings(request);
    const folder =
      agent === undefined
        ? undefined
        : memoryFolder(agent, settings.persist, {
            cwd: options.cwd ?? process.cwd(),
            runDir,
            homeDir: options.homeDir ?? homedir(),
          });
    if (resume && folder === undefined)
      throw core.error(
        `resume: ${agent ?? "?"} needs an agent with persist: (true, project, user or a path).`,
        request.at,
        label,
      );
    if (folder !== undefined)
      this.scope.folder?.agent(agent!, persistScope(settings.persist), relative(runDir, folder) || ".");
    // With `context:` (even `[]`) a session is given exactly that; without, it sees the trail.
    const trail = settings.context === undefined ? context.trail.entries() : [];
    if (core.listening)
      core.emit({
        type: "session-start",
        at: request.at,
        label,
        ...(agent === undefined ? {} : { agent }),
        trail: trail.map((entry) => entry.source),
      });
    const block = context.block;
    const policy = {
      retries: settings.retry ?? 0,
      backoff: settings.backoff ?? "none",
      baseDelayMs: options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    };
    const result = await this.cancellable(core, context, request.at, label, () =>
      core.step(
        context,
        "session",
        request.at,
        label,
        sessionAsk(request, resume, core.skills.resolve(settings.skills, core.program.skillFolders)),
        (signal, key) =>
          withRetries(policy, signal, async (attempt) => {
            const conversation = core.durability.conversation?.(key);
            const steps = redactedSessionSteps(
              core.durability.sessionSteps?.(key, signal) ?? PLAIN_SESSION_STEPS,
              core.secrets,
            );
            // A `retry:` attempt starts the conversation over; a resumed run's first attempt goes on with it.
            if (attempt > 1) conversation?.append({ type: "restart" });
            if (attempt > 1) traceRetry(attempt);
            const memory =
              resume && folder !== undefined ? { agent: agent!, content: await readMemory(folder) } : undefined;
            let saved: { memory: string; summary: string } | undefined;
            const outcome = await runAgent(
              core,
              {
                request,
                block,
                trail,
                step: key,
                ...(conversation === undefined ? {} : { conversation }),
                steps,
                ...(memory === undefined ? {} : { memory }),
                ...(folder === undefined
                  ? {}
                  : { onMemory: (m: string, s: string) => void (saved = { memory: m, summary: s }) }),
              },
              signal,
            );
            if (folder === undefined) return outcome;
            // Recorded with the step and written to the folder after it (below).
            const remembered: RememberedSession = {
              run: this.scope.runId,
              step: core.traceSite(key),
              ...(saved === undefined ? {} : { memory: saved.memory }),
              summary: saved?.summary ?? text(outcome.value).slice(0, 2000),
              timestamp: new Date().toISOString(),
            };
            return { ...outcome, remembered };
          }),
      ),
    );
    if (folder !== undefined && result.remembered !== undefined) {
      const record = { agent: agent!, prompt: sessionTask(request), remembered: result.remembered };
      try {
        await this.inTurn(folder, () => recordSession(folder, record, this.segments, result.replayed));
      } catch (error) {
        // The run's state, as its journal: a memory that cannot be written (a full disk) stops the
        // run, `try:` or not, instead of a run that succeeds without it; a resume writes it.
        const failure = asEnvironmentError(error, `Writing the memory of agent ${agent!} (${folder})`);
        if (!(failure instanceof EnvironmentError))
          throw core.error(
            `Writing the memory of agent ${agent!} failed: ${describeError(error)}`,
            request.at,
            label,
            error,
          );
        core.stopRun(failure);
        throw failure;
      }
    }
    if (core.listening)
      core.emit({
        type: "session-end",
        at: request.at,
        label,
        usage: result.usage,
        replayed: result.replayed,
        ...(result.truncated === undefined ? {} : { truncated: result.truncated }),
      });
    if (request.binding === undefined) this.scope.folder?.anonymous(request.at, result.value, block?.executionId);
    if (request.unbound === true) context.trail.add(label, result.value);
    return result.value;
  }

  /** Runs a session's step; a cancelled one ends as cancelled, never as a start without an end. */
  private async cancellable<T>(
    core: RunCore,
    context: StepContext,
    at: Site,
    label: string,
    step: () => Promise<T>,
  ): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (context.signal.aborted && core.listening)
        core.emit({ type: "session-end", at, label, usage: [], replayed: false, cancelled: true });
      throw error;
    }
  }

  /**
   * Runs `write` after every earlier write to the same memory folder: sessions of one persistent agent
   * in parallel branches would otherwise number their segments alike.
   */
  private inTurn<T>(folder: string, write: () => Promise<T>): Promise<T> {
    const previous = this.memoryWrites.get(folder) ?? Promise.resolve();
    const next = previous.then(write, write);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.memoryWrites.set(folder, settled);
    void settled.then(() => {
      if (this.memoryWrites.get(folder) === settled) this.memoryWrites.delete(folder);
    });
    return next;
  }
}

function persistScope(persist: SessionRequest["persist"]): string {
  if (persist === true) return "execution";
  if (persist === "project" || persist === "user") return persist;
  return "custom";
}
