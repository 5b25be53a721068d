import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { reply, startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";

let server: FakeServer;
afterEach(async () => server?.close());

describe("the fake Messages API server", () => {
  it("answers from its script, then from the responder, and records every request", async () => {
    server = await startFakeAnthropic({
      script: [reply.text("scripted")],
      respond: (request) => reply.text(`responder saw #${request.index}`),
    });
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
    const ask = async () =>
      (await client.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }))
        .content;
    expect(await ask()).toEqual([{ type: "text", text: "scripted" }]);
    expect(await ask()).toEqual([{ type: "text", text: "responder saw #1" }]);
    expect(server.requests.map((request) => [request.state, request.body?.model])).toEqual([
      ["answered", "m"],
      ["answered", "m"],
    ]);
  });

  it("without a responder, a request beyond the script gets a non-retryable 500 that says so", async () => {
    server = await startFakeAnthropic();
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url });
    await expect(
      client.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toThrow(/script exhausted/);
    expect(server.requests).toHaveLength(1);
  });

  it("records a request the client aborted while it hung", async () => {
    server = await startFakeAnthropic({ script: [reply.hang()] });
    const client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: server.url, maxRetries: 0 });
    const controller = new AbortController();
    const pending = client.messages.create(
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      { signal: controller.signal },
    );
    await server.waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The server sees the connection close a moment later (longer on a loaded machine).
    await vi.waitFor(() => expect(server!.requests[0]!.state).toBe("aborted"), { timeout: 5_000 });
  });
});
