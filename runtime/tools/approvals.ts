/**
 * Approvals that survive a restart (DIALECT.md, "An explicit `prompt` means a person decides,
 * durably"). In a run with a run folder and no `onPermission`, a tool call an explicit `prompt`
 * permission puts to a person stops the run as waiting (a `WaitingForInput` whose question is the
 * call: agent, tool, what it touches), with the call pending in the session's journal. `prosec
 * approve` / `prosec deny` answer it as `prosec answer` answers an input (the answer is journaled
 * under the call's own key), and the resumed session runs the approved call then, once: the pending
 * call was never started, so the "interrupted, effect unknown" rule does not apply to it; a kill
 * during the approved call does.
 *
 * On DBOS the run does not stop: the call's checkpoint records that it waits, the workflow waits in
 * the database for `prosec approve` / `prosec deny` (dbos/session-steps.ts), and the call runs then
 * with the answer delivered (`PermissionCall.delivered`), once, whichever worker holds the run by then.
 *
 * The call asked about comes with the request (`PermissionGuard.forCall`), not from an async context.
 *
 * Only an explicit `prompt` asks: `run_command` under the implicit default of `bash:` is refused
 * here, as it is not offered without someone to ask.
 */
import { createHash } from "node:crypto";
import { WaitingForInput } from "../errors.js";
import type { PermissionCall } from "./permissions.js";
import { PermissionDenied } from "./tool.js";
import type { Permissions, PermissionRequest, Value } from "../types.js";

/** The prefix of an approval's question name: `approve_<call>`. */
export const APPROVAL_PREFIX = "approve_";

/** A run stopped for a person to approve a tool call. */
export class WaitingForApproval extends WaitingForInput {
  override readonly name: string = "WaitingForApproval";
}

/** Whether the permissions put anything to a person explicitly. */
export function asksExplicitly(permissions: Permissions | undefined): boolean {
  return (
    permissions !== undefined &&
    (permissions.bash === "prompt" ||
      permissions.network === "prompt" ||
      (permissions.ask?.length ?? 0) > 0 ||
      (permissions.mcpPrompt?.length ?? 0) > 0)
  );
}

/** Whether a person is asked: not for `run_command` under the implicit default of `bash:`. */
function putToAPerson(permissions: Permissions, request: PermissionRequest): boolean {
  return (
    request.tool !== "run_command" || permissions.bash === "prompt" || permissions.ask?.includes("execute") === true
  );
}

/** `RunOptions.onApproval` for an agent: asked about explicit prompts only. */
export function explicitAsker(
  permissions: Permissions,
  onApproval: (request: PermissionRequest) => boolean | Promise<boolean>,
): (request: PermissionRequest) => boolean | Promise<boolean> {
  return (request) => putToAPerson(permissions, request) && onApproval(request);
}

/** What a yes is: `yes`, `y`, `true`, `always`, `approve(d)`; anything else (`no: reason`) refuses. */
export function approves(answer: Value): boolean {
  if (answer === true) return true;
  return typeof answer === "string" && /^(y|yes|true|always|approved?)$/i.test(answer.trim());
}

/**
 * Where a person's answer about a call is journaled: the call's id, and a digest of what the person
 * was shown and what the tool was given, and of the session's attempt after the first. A call that
 * reuses an answered call's id (a hostile model or endpoint) for another action, or a path that leads
 * elsewhere by the time the run resumes, finds no answer and is asked about again: a yes is for the
 * action the person saw. So is the same call made again by a `retry:` attempt (the endpoint chose the
 * id again): the yes ran it once, in the attempt it was given in.
 */
function approvalKey(call: PermissionCall, request: PermissionRequest): string {
  const shown = [request.tool, request.detail, call.input ?? null];
  // The first attempt's keys are as they were: a run waiting since an older prosec keeps its answer.
  const attempt = call.attempt === undefined || call.attempt === 0 ? [] : [call.attempt];
  const digest = createHash("sha256")
    .update(JSON.stringify([...shown, ...attempt]))
    .digest("hex")
    .slice(0, 16);
  return `${call.step}/approval:${call.id}#${digest}`;
}

/**
 * The asker of an agent with explicit `prompt` permissions, in a run that keeps its answers in a
 * journal: the recorded answer for this call, or the run stops waiting for one.
 */
export function durableAsker(
  permissions: Permissions,
  recorded: (key: string) => Promise<Value | undefined>,
  file: string,
): (request: PermissionRequest, call?: PermissionCall) => Promise<boolean> {
  return async (request, call) => {
    if (call === undefined || !putToAPerson(permissions, request)) return false;
    const key = approvalKey(call, request);
    const { delivered } = call;
    if (delivered !== undefined && delivered.key !== key)
      // The call runs once after the person's answer (DBOS): an action it reaches that they were not
      // shown (a redirect's next URL, a path that leads elsewhere now) is refused, not waved through.
      throw new PermissionDenied(
        `${request.tool}: ${request.detail} is not what a person approved for this call; it needs an approval of its own (call the tool for it).`,
      );
    const answer = delivered?.answer ?? (await recorded(key));
    if (answer !== undefined && approves(answer)) return true;
    if (answer !== undefined) {
      const reason = typeof answer === "string" ? /^no\s*:\s*(.+)$/is.exec(answer)?.[1]?.trim() : undefined;
      throw new PermissionDenied(
        `A person refused ${request.tool}: ${request.detail}${reason === undefined ? "" : ` (${reason})`}`,
      );
    }
    const who = request.agent === undefined ? "A session" : `Agent ${request.agent}`;
    throw new WaitingForApproval(
      [
        {
          name: `${APPROVAL_PREFIX}${commandWord(call.id)}`,
          prompt: `${who} asks to use ${request.tool}: ${request.detail}`,
          key,
          at: call.at,
        },
      ],
      file,
    );
  };
}

/**
 * A call id as the word `prosec approve RUN <call>` takes: letters, digits, `_` and `-`, and never a
 * leading `-`, so an id an endpoint chose (`--all`) cannot turn the printed command into another.
 */
function commandWord(id: string): string {
  return id.replace(/[^\w-]/g, "_").replace(/^-+/, (dashes) => "_".repeat(dashes.length));
}
