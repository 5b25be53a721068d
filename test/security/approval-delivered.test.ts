/**
 * A person's answer delivered to the call it answers (DBOS: the workflow waits for `prosec approve`,
 * then runs the call once with the answer, `PermissionCall.delivered`). The answer approves the
 * action the person was shown and nothing else the call reaches: `fetch_url` under `network: prompt`
 * asks about every hop, so a redirect (a link shortener's, say) to a URL the person never saw is
 * refused, not waved through by the first hop's yes. Driven through the guard and the durable asker
 * the runtime builds, as `fetch_url` calls them hop by hop. And a call id an endpoint chose to read
 * as an option (`--all`) names its question by a word that does not, since `prosec run` prints
 * `prosec approve RUN <call>` for a person to copy.
 */
import { describe, expect, it } from "vitest";
import { durableAsker, WaitingForApproval } from "../../runtime/tools/approvals.js";
import { PermissionGuard, type PermissionCall } from "../../runtime/tools/permissions.js";
import { PermissionDenied } from "../../runtime/tools/tool.js";
import type { Permissions } from "../../runtime/types.js";
import { temporaryFolder } from "../runtime/helpers.js";

const PERMISSIONS: Permissions = { network: "prompt" };
const SHOWN = "https://short.example/abc";
const REDIRECTED = "https://collector.example/?notes=the-private-plan";

function guard(): PermissionGuard {
  const asker = durableAsker(PERMISSIONS, () => Promise.resolve(undefined), "fetch.prose");
  return new PermissionGuard(temporaryFolder("prosec-approval-delivered-"), PERMISSIONS, asker, "reader");
}

const call: PermissionCall = {
  id: "toolu_01",
  step: "/session@3:1#0",
  at: { line: 3, column: 1 },
  input: { url: SHOWN },
};

/** The question the run waits on for the first hop, as the workflow records it. */
async function questionAsked(permissions: PermissionGuard): Promise<{ key: string; prompt: string }> {
  const error = await permissions
    .forCall(call)
    .checkUrl(SHOWN)
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(WaitingForApproval);
  return (error as WaitingForApproval).questions[0]!;
}

describe("the question a call is asked under", () => {
  it("names a call whose id reads as an option by a word that does not (prosec approve RUN <call>)", async () => {
    const error = await guard()
      .forCall({ ...call, id: "--all" })
      .checkUrl(SHOWN)
      .catch((caught: unknown) => caught);
    expect((error as WaitingForApproval).questions[0]!.name).toBe("approve___all");
  });
});

describe("a delivered approval is for the action the person saw", () => {
  it("approves the URL shown, and refuses a redirect's next hop", async () => {
    const permissions = guard();
    const question = await questionAsked(permissions);
    expect(question.prompt).toBe(`Agent reader asks to use fetch_url: ${SHOWN}`);
    const approved = permissions.forCall({ ...call, delivered: { answer: "yes", key: question.key } });
    expect((await approved.checkUrl(SHOWN)).href).toBe(SHOWN);
    const hop = await approved.checkUrl(REDIRECTED).catch((caught: unknown) => caught);
    expect(hop).toBeInstanceOf(PermissionDenied);
    expect((hop as Error).message).toBe(
      `fetch_url: ${REDIRECTED} is not what a person approved for this call; it needs an approval of its own (call the tool for it).`,
    );
  });

  it("a denial delivered is a denial of the action shown, with the reason", async () => {
    const permissions = guard();
    const question = await questionAsked(permissions);
    const denied = permissions.forCall({ ...call, delivered: { answer: "no: not today", key: question.key } });
    await expect(denied.checkUrl(SHOWN)).rejects.toThrow(`A person refused fetch_url: ${SHOWN} (not today)`);
  });
});
