/**
 * `Secrets.redactError`: what a store that writes an error whole (DBOS serializes its message, stack,
 * own properties and causes) is left with holds no secret, and the error is still what the run's
 * handling reads (its class, its status).
 */
import { describe, expect, it } from "vitest";
import { Secrets } from "../../runtime/tools/secrets.js";

const KEY = "sk-ant-api03-secret-key-0123456789";

class StatusError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly error: unknown,
  ) {
    super(message);
  }
}

describe("an error's secrets", () => {
  it("are removed from its message, stack, body and causes, in place", () => {
    const secrets = Secrets.of(KEY, {}, undefined);
    const root = new Error(`spawn ${KEY} ENOENT`);
    const error = new StatusError(`401 invalid x-api-key: ${KEY}`, 401, {
      type: "error",
      error: { type: "authentication_error", message: `invalid x-api-key: ${KEY}` },
    });
    Object.defineProperty(error, "cause", { value: root, enumerable: false });
    expect(error.stack).toContain(KEY);

    expect(secrets.redactError(error)).toBe(error);
    expect(error).toBeInstanceOf(StatusError);
    expect(error.status).toBe(401);
    expect(error.message).toBe("401 invalid x-api-key: [redacted]");
    expect(error.stack).toContain("401 invalid x-api-key: [redacted]");
    expect(error.error).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key: [redacted]" },
    });
    expect(root.message).toBe("spawn [redacted] ENOENT");
    const written = JSON.stringify({ ...error, message: error.message, stack: error.stack, cause: root.stack });
    expect(written).not.toContain(KEY);
  });

  it("follows a cycle of causes once, and leaves a string cause and other throws readable", () => {
    const secrets = Secrets.of(KEY, {}, undefined);
    const first = new Error(`first ${KEY}`);
    const second = new Error(`second ${KEY}`, { cause: first });
    Object.defineProperty(first, "cause", { value: second });
    secrets.redactError(second);
    expect([first.message, second.message]).toEqual(["first [redacted]", "second [redacted]"]);

    const withText = new Error("outer", { cause: `because ${KEY}` });
    secrets.redactError(withText);
    expect(withText.cause).toBe("because [redacted]");
    expect(secrets.redactError(`thrown text ${KEY}`)).toBe(`thrown text ${KEY}`);
    expect(secrets.redactError(undefined)).toBeUndefined();
  });

  it("a failing body is rethrown redacted; a passing one returns its value", async () => {
    const secrets = Secrets.of(KEY, {}, undefined);
    await expect(secrets.failureRedacted(() => Promise.resolve(3))()).resolves.toBe(3);
    await expect(secrets.failureRedacted(() => Promise.reject(new Error(`no: ${KEY}`)))()).rejects.toThrow(
      /^no: \[redacted\]$/,
    );
  });
});
