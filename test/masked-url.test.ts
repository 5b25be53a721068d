/**
 * A URL prosec prints (a database's, a trace collector's) shows no password and no secret-looking query value.
 */
import { describe, expect, it } from "vitest";
import { maskedUrl } from "../src/masked-url.js";

describe("maskedUrl", () => {
  it("hides the user info's password, keeping the user", () => {
    expect(maskedUrl("postgres://prosec:s3cret@db:5432/runs")).toBe("postgres://prosec:***@db:5432/runs");
  });

  it("hides the values of query parameters named like passwords, tokens, keys, secrets and auth", () => {
    expect(
      maskedUrl("postgres://127.0.0.1:1/db?user=x&password=qwerty123&sslmode=require&api_key=k1&Authorization=b"),
    ).toBe("postgres://127.0.0.1:1/db?user=x&password=***&sslmode=require&api_key=***&Authorization=***");
    const collector = maskedUrl("http://user:hunter2pass@127.0.0.1:9/v1/traces?token=abc123secret&client_secret=z");
    expect(collector).toBe("http://user:***@127.0.0.1:9/v1/traces?token=***&client_secret=***");
  });

  it("leaves a URL without secrets as it is, and hides text that is no URL", () => {
    expect(maskedUrl("http://127.0.0.1:4318/v1/traces")).toBe("http://127.0.0.1:4318/v1/traces");
    expect(maskedUrl("not a url hunter2")).toBe("(not a URL)");
  });
});
