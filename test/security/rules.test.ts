/**
 * The rules under the permission guard, one by one: command lines, command patterns, network
 * patterns, internal addresses, the tools' environment, redaction and protected paths. The attack
 * suite (attacks.test.ts) drives the same rules through the real runtime and counts escapes by effect.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { matchesCommandPattern, parseSimpleCommand } from "../../runtime/tools/command-line.js";
import { gitSafeEnvironment, toolEnvironment } from "../../runtime/tools/environment.js";
import {
  isInternalAddress,
  matchesNetworkPattern,
  namesHost,
  parseNetworkPattern,
} from "../../runtime/tools/network-rules.js";
import { PermissionGuard } from "../../runtime/tools/permissions.js";
import { Secrets } from "../../runtime/tools/secrets.js";
import { temporaryFolder } from "../runtime/helpers.js";

function refusal(line: string): string {
  const parsed = parseSimpleCommand(line);
  if (!("refusal" in parsed)) throw new Error(`${line} was accepted as ${JSON.stringify(parsed.argv)}`);
  return parsed.refusal;
}

describe("simple commands", () => {
  it("parses quoting as a shell would, into argv", () => {
    expect(parseSimpleCommand(`git commit -m "fix: a b" 'it''s' a\\ b $'\\x41'`)).toEqual({
      argv: ["git", "commit", "-m", "fix: a b", "its", "a b", "A"],
    });
    expect(parseSimpleCommand(`echo '*' ";" '$HOME' "a>b"`)).toEqual({ argv: ["echo", "*", ";", "$HOME", "a>b"] });
  });

  it.each([
    ["ls ; touch x", "`;`"],
    ["ls && x", "`&&`"],
    ["ls || x", "`||`"],
    ["ls | x", "`|`"],
    ["ls & x", "`&`"],
    ["ls > f", "`>`"],
    ["ls >> f", "`>>`"],
    ["ls < f", "`<`"],
    ["ls 2>&1", "`>&`"],
    ["ls <(id)", "`<(`"],
    ["(ls)", "`(`"],
    ["ls $(id)", "`$` (a substitution)"],
    ["ls `id`", "`` ` `` (command substitution)"],
    ['echo "`id`"', "`` ` `` (command substitution)"],
    ["echo $HOME", "`$HOME` (a variable)"],
    ['echo "${ANTHROPIC_API_KEY}"', "`$ANTHROPIC_API_KEY` (a variable)"],
    ["ls$IFS-la", "`$IFS`"],
    ["ls *", "the glob `*`"],
    ["ls ?", "the glob `?`"],
    ["ls # comment", "`#` (a comment)"],
    ["FOO=1 ls", "a variable assignment (`FOO=`)"],
    ["ls\ntouch x", "a line break"],
    ["ls\u0000x", "a control character"],
  ])("%j is refused: it uses %s", (line, what) => {
    expect(refusal(line)).toContain(`uses ${what}`);
    expect(refusal(line)).toContain("which an allow-list does not permit");
  });

  it("refuses an empty line and one the parser cannot read", () => {
    expect(refusal("   ")).toBe("The command is empty.");
    expect(refusal("echo ${x:-$(id)}")).toMatch(/cannot be read as a shell command/);
  });

  it("patterns match argv: words exactly, `*` inside a word within it, a trailing `*` any number of arguments", () => {
    const matches = (pattern: string, line: string) =>
      matchesCommandPattern(pattern, (parseSimpleCommand(line) as { argv: string[] }).argv);
    expect(matches("ls *", "ls")).toBe(true);
    expect(matches("ls *", "ls -la src")).toBe(true);
    expect(matches("git status", "git status")).toBe(true);
    expect(matches("git status", "git status --short")).toBe(false);
    expect(matches("git * --short", "git status --short")).toBe(true);
    expect(matches("git * --short", "git status x --short")).toBe(false);
    expect(matches("npm run test:*", "npm run test:unit")).toBe(true);
    expect(matches("npm run test:*", "npm run build")).toBe(false);
    expect(matches("echo *", "echo '; touch x'")).toBe(true);
    expect(matches("ls *", "lsblk")).toBe(false);
    expect(matches("ls *", "/bin/ls")).toBe(false);
    expect(matches("ls; *", "ls")).toBe(false);
  });
});

describe("network patterns and addresses", () => {
  const allows = (pattern: string, url: string) => matchesNetworkPattern(parseNetworkPattern(pattern)!, new URL(url));

  it("match the parsed URL: scheme, host glob, port, path; never the query, fragment or user info", () => {
    expect(allows("*.example.org", "https://docs.example.org/x?y#z")).toBe(true);
    expect(allows("*.example.org", "http://a.b.example.org:8080/")).toBe(true);
    expect(allows("*.example.org", "http://127.0.0.1:9/steal?.example.org")).toBe(false);
    expect(allows("*.example.org", "http://127.0.0.1:9/#.example.org")).toBe(false);
    expect(allows("*.example.org", "http://a.example.org@127.0.0.1:9/")).toBe(false);
    expect(allows("*.example.org", "http://evil.com/.example.org")).toBe(false);
    expect(allows("https://api.github.com/*", "https://api.github.com/repos/x")).toBe(true);
    expect(allows("https://api.github.com/*", "http://api.github.com/repos/x")).toBe(false);
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/users/x")).toBe(false);
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/repos/../users/x")).toBe(false);
    // A separator written encoded is text to the URL parser and a separator to many servers.
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/repos/..%2Fusers/x")).toBe(false);
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/repos/..%5cusers/x")).toBe(false);
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/repos/%2e%2e/users/x")).toBe(false);
    expect(allows("https://api.github.com/repos/*", "https://api.github.com/repos/a%20b")).toBe(true);
    expect(allows("api.github.com", "https://api.github.com/repos/..%2Fusers")).toBe(true);
    expect(allows("example.org:8080", "http://example.org:8080/a")).toBe(true);
    expect(allows("example.org:8080", "http://example.org/a")).toBe(false);
    expect(allows("example.org:443", "https://EXAMPLE.org/")).toBe(true);
    expect(allows("http://127.0.0.1:8080/*", "http://0x7f.1:8080/")).toBe(true);
    expect(parseNetworkPattern("ftp://example.org")).toBeUndefined();
  });

  it("a URL whose path holds an encoded separator is refused by path patterns, saying why", async () => {
    const guard = new PermissionGuard(temporaryFolder(), { network: ["https://api.github.com/repos/me/*"] }, undefined);
    await expect(guard.checkUrl("https://api.github.com/repos/me/..%2F..%2Fadmin")).rejects.toThrow(
      "The URL matches none of this agent's network patterns (a path with an encoded / or \\, %2F or %5C, matches no pattern that names a path): https://api.github.com/repos/me/..%2F..%2Fadmin",
    );
    expect((await guard.checkUrl("https://api.github.com/repos/me/x")).pathname).toBe("/repos/me/x");
  });

  it("only a pattern without `*` names a host (and may reach what it resolves to)", () => {
    const names = (pattern: string, url: string) => namesHost(parseNetworkPattern(pattern)!, new URL(url));
    expect(names("localhost:3000", "http://localhost:3000/")).toBe(true);
    expect(names("localhost:3000", "http://localhost.:3000/")).toBe(false);
    expect(names("http://[::1]/*", "http://[0:0::1]/x")).toBe(true);
    expect(names("*.example.org", "http://a.example.org/")).toBe(false);
    expect(names("*", "http://127.0.0.1/")).toBe(false);
  });

  it("an approval (network: prompt) or network: allow does not open internal addresses; an exact pattern does", async () => {
    const approved = new PermissionGuard(temporaryFolder(), { network: "prompt" }, () => true);
    const url = await approved.checkUrl("http://innocent.example/");
    expect(() => approved.checkAddresses(url, ["127.0.0.1"])).toThrow(
      /innocent.example resolves to 127.0.0.1, which is a loopback/,
    );
    expect(() =>
      new PermissionGuard(temporaryFolder(), { network: "allow" }, undefined).checkAddresses(new URL("http://[::1]/"), [
        "::1",
      ]),
    ).toThrow(/::1 is a loopback/);
    const exact = new PermissionGuard(temporaryFolder(), { network: ["localhost:3000", "*.internal"] }, undefined);
    expect(() => exact.checkAddresses(new URL("http://localhost:3000/x"), ["127.0.0.1"])).not.toThrow();
    expect(() => exact.checkAddresses(new URL("http://localhost:3001/x"), ["127.0.0.1"])).toThrow(/loopback/);
    expect(() => exact.checkAddresses(new URL("http://db.internal/"), ["10.0.0.5"])).toThrow(/private/);
    expect(() => exact.checkAddresses(new URL("http://db.internal/"), ["93.184.216.34"])).not.toThrow();
  });

  it.each([
    "127.0.0.1",
    "127.255.0.1",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "2001:db8::1",
    "not an address",
  ])("%s is internal", (address) => {
    expect(isInternalAddress(address)).toBe(true);
  });

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:93.184.216.34", "2002:5db8:d822::"])(
    "%s is public",
    (address) => {
      expect(isInternalAddress(address)).toBe(false);
    },
  );
});

describe("the tools' environment and redaction", () => {
  const parent = {
    PATH: "/usr/bin:.::bin:/bin",
    HOME: "/home/me",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    TERM: "xterm",
    ANTHROPIC_API_KEY: "sk-ant-secret-value",
    GITHUB_TOKEN: "ghp_abcdefgh",
    AWS_SECRET_ACCESS_KEY: "x",
    DB_PASSWORD: "y",
    OTHER: "z",
  };

  it("keeps the basics and what is named; PATH loses relative entries", () => {
    expect(toolEnvironment({ parent, toolEnv: undefined, named: undefined })).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C",
      TERM: "xterm",
      ...gitSafeEnvironment(),
    });
    expect(gitSafeEnvironment()).toMatchObject({ GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_COUNT: "4" });
    expect(toolEnvironment({ parent, toolEnv: { GIT_CONFIG_COUNT: "0" }, named: undefined })["GIT_CONFIG_COUNT"]).toBe(
      "4",
    );
    const named = toolEnvironment({ parent, toolEnv: { APP_MODE: "test" }, named: ["GITHUB_TOKEN", "MISSING"] });
    expect(named["GITHUB_TOKEN"]).toBe("ghp_abcdefgh");
    expect(named["APP_MODE"]).toBe("test");
    expect(Object.keys(named)).not.toContain("ANTHROPIC_API_KEY");
    expect(Object.keys(named)).not.toContain("MISSING");
  });

  it("never gives a tool the model's credentials, even named, under their names or another", () => {
    const env = { ...parent, ANTHROPIC_AUTH_TOKEN: "auth-token-value", KEY_COPY: "sk-ant-secret-value" };
    const named = toolEnvironment({
      parent: env,
      toolEnv: undefined,
      named: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "KEY_COPY", "GITHUB_TOKEN", "OPTION_KEY"],
      apiKey: "sk-ant-given-in-run-options",
    });
    expect(named).toMatchObject({ GITHUB_TOKEN: "ghp_abcdefgh" });
    expect(Object.keys(named)).not.toContain("ANTHROPIC_API_KEY");
    expect(Object.keys(named)).not.toContain("ANTHROPIC_AUTH_TOKEN");
    expect(Object.keys(named)).not.toContain("KEY_COPY");
    // RunOptions.apiKey, held by another variable.
    const given = toolEnvironment({
      parent: { ...env, OPTION_KEY: "sk-ant-given-in-run-options" },
      toolEnv: undefined,
      named: ["OPTION_KEY"],
      apiKey: "sk-ant-given-in-run-options",
    });
    expect(Object.keys(given)).not.toContain("OPTION_KEY");
  });

  it("redacts the key, secret-named variables and what tools are given, 8 characters or more, longest first", () => {
    const secrets = Secrets.of(
      "sk-ant-api-key-123",
      { GITHUB_TOKEN: "ghp_abcdefgh", MY_PASSWORD_FILE: "short", OTHER: "not-a-secret-at-all" },
      { DEPLOY: "deploy-credential" },
    );
    secrets.add("sk-ant-api-key-123-and-more");
    expect(
      secrets.redact(
        "a sk-ant-api-key-123-and-more b sk-ant-api-key-123 ghp_abcdefgh deploy-credential short not-a-secret-at-all",
      ),
    ).toBe("a [redacted] b [redacted] [redacted] [redacted] short not-a-secret-at-all");
    const value = { list: ["ok", "ghp_abcdefgh"], nested: { n: 1 } };
    expect(secrets.redactDeep(value)).toEqual({ list: ["ok", "[redacted]"], nested: { n: 1 } });
    const clean = { a: ["x"], b: { c: "y" } };
    expect(secrets.redactDeep(clean)).toBe(clean);
  });

  it("redacts a secret anywhere in a value, property names and disguised forms included, and keeps what holds none", () => {
    const secrets = Secrets.of("sk-ant-api-key-123", {}, undefined);
    const untouched = { deep: [{ text: "nothing here" }] };
    const value = {
      untouched,
      steps: [[{ note: "ok" }, { note: `spaced: ${[..."sk-ant-api-key-123"].join(" ")}` }]],
      "sk-ant-api-key-123": 1,
      count: 3,
      flag: null,
    };
    const redacted = secrets.redactDeep(value);
    expect(redacted).toEqual({
      untouched,
      steps: [[{ note: "ok" }, { note: "spaced: [redacted]" }]],
      "[redacted]": 1,
      count: 3,
      flag: null,
    });
    // What holds no secret is the same object; the input is never changed.
    expect(redacted.untouched).toBe(untouched);
    expect(value.steps[0]![1]!.note).toContain("s k - a n t");
    // A secret only in a property name deep down still counts.
    const nested = { a: [{ b: { [Buffer.from("sk-ant-api-key-123").toString("hex")]: "x" } }] };
    expect(JSON.stringify(secrets.redactDeep(nested))).toBe('{"a":[{"b":{"[redacted]":"x"}}]}');
    const plain = [1, "two", { three: [true] }];
    expect(secrets.redactDeep(plain)).toBe(plain);
  });

  it("redacts a secret disguised: spaced out, reversed, hex, base64 at every alignment", () => {
    const key = "sk-ant-api03-Zx9_Qw7";
    const secrets = Secrets.of(key, {}, undefined);
    const disguises = [
      [...key].join(" "),
      [...key].join("  "),
      [...key].reverse().join(""),
      [...key].reverse().join(" "),
      Buffer.from(key).toString("hex"),
      Buffer.from(key).toString("hex").toUpperCase(),
      Buffer.from(`KEY=${key}`).toString("base64"),
      Buffer.from(`KEY:${key}\n`).toString("base64"),
      Buffer.from(`K=${key}`).toString("base64"),
      Buffer.from(`${key}`).toString("base64url"),
    ];
    for (const disguise of disguises) {
      const shown = secrets.redact(`leaked: ${disguise} end`);
      expect(shown, disguise).toContain("[redacted]");
      expect(shown.length, disguise).toBeLessThan(`leaked: ${disguise} end`.length - 8);
    }
    expect(secrets.redact("sk ant api but nothing else")).toBe("sk ant api but nothing else");
  });

  it("holds back exactly the longest end of a streamed text that may begin a secret (random texts)", () => {
    const key = "skantaXbXskan";
    const secrets = Secrets.of(key, {}, undefined);
    // Forms the text's end may begin: the key and its reverse (its hex and base64 forms begin with 7, c, z, N).
    const forms = [key, [...key].reverse().join("")];
    const longestBeginning = (text: string): number => {
      let longest = 0;
      for (const form of forms)
        for (let length = 1; length < form.length && length <= text.length; length++)
          if (text.endsWith(form.slice(0, length))) longest = Math.max(longest, length);
      return longest;
    };
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = "skantaXbY ";
    for (let index = 0; index < 3000; index++) {
      let text = Array.from({ length: Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * 10)]).join("");
      if (random() < 0.5) text += forms[index % 2]!.slice(0, Math.floor(random() * key.length));
      // Spaced-out beginnings are held back too (at least as much): compare on texts without spaces.
      if (text.includes(" ")) expect(secrets.unsafeTail(text), text).toBeGreaterThanOrEqual(longestBeginning(text));
      else expect(secrets.unsafeTail(text), text).toBe(longestBeginning(text));
    }
  });

  it("redacts a text seen before a secret was added once the secret is known (an MCP server's, mid-run)", () => {
    const secrets = Secrets.of("sk-ant-api-key-123", {}, undefined);
    const text = "the server's token is tok-live-0042-abcdef";
    // Asked twice, so the answer is remembered if it ever is.
    expect(secrets.redact(text)).toBe(text);
    expect(secrets.redact(text)).toBe(text);
    secrets.add("tok-live-0042-abcdef");
    expect(secrets.redact(text)).toBe("the server's token is [redacted]");
    expect(secrets.redactDeep({ [text]: text })).toEqual({
      "the server's token is [redacted]": "the server's token is [redacted]",
    });
    // Shorter than any secret may be: left as it is.
    expect(secrets.redact("tok-liv")).toBe("tok-liv");
  });
});

describe("protected paths", () => {
  function project(): string {
    const cwd = temporaryFolder();
    mkdirSync(join(cwd, "sub"));
    writeFileSync(join(cwd, "sub", "a.txt"), "a");
    return cwd;
  }

  it("writes never reach .git or .prose at any depth, in any case, unless a pattern names them", () => {
    const guard = new PermissionGuard(project(), { write: ["**"] }, undefined);
    for (const path of [
      ".git/config",
      ".GIT/config",
      "sub/.git/config",
      "sub/.Git/hooks/x",
      ".prose/runs/x",
      ".PROSE/x",
      "a/b/.prose/c",
      "./sub/../.git/x",
    ]) {
      expect(() => guard.writablePath(path), path).toThrow(/not permitted/);
    }
    expect(guard.writablePath(".github/workflows/ci.yml")).toMatch(/ci\.yml$/);
    const hooks = new PermissionGuard(project(), { write: ["**", ".git/hooks/**"] }, undefined);
    expect(hooks.writablePath(".git/hooks/pre-commit")).toMatch(/pre-commit$/);
    expect(() => hooks.writablePath(".git/config")).toThrow(/not permitted/);
    expect(() => hooks.writablePath(".GIT/hooks/pre-commit")).toThrow(/not permitted/);
  });

  it("writes never reach programs, their modules, prose.lock or prose_modules unless a pattern names them", () => {
    const guard = new PermissionGuard(project(), { write: ["**"] }, undefined);
    for (const path of [
      "main.prose",
      "sub/x.prose",
      "x.prose.ts",
      "gen/x.prose.js",
      "prose.lock",
      "prose_modules/a/b.md",
    ])
      expect(() => guard.writablePath(path), path).toThrow(/not permitted/);
    expect(guard.writablePath("notes.prose.md")).toMatch(/notes\.prose\.md$/);
    const drafts = new PermissionGuard(project(), { write: ["**", "drafts/*.prose"] }, undefined);
    expect(drafts.writablePath("drafts/new.prose")).toMatch(/new\.prose$/);
    expect(() => drafts.writablePath("main.prose")).toThrow(/not permitted/);
    expect(() => drafts.writablePath("drafts/new.prose.ts")).toThrow(/not permitted/);
  });

  it("reads never reach .env* or .prose unless a pattern names them; excludes ignore case", () => {
    const cwd = project();
    const guard = new PermissionGuard(cwd, undefined, undefined);
    for (const path of [
      ".env",
      ".ENV",
      ".env.local",
      "sub/.env",
      "sub/.Env.production",
      ".prose/runs/x/state.md",
      "sub/.PROSE/x",
    ]) {
      expect(() => guard.readablePath(path), path).toThrow(/not permitted/);
    }
    expect(guard.readablePath(".git/HEAD")).toMatch(/HEAD$/);
    expect(new PermissionGuard(cwd, { read: ["**", ".env.example"] }, undefined).readablePath(".env.example")).toMatch(
      /example$/,
    );
    expect(() => new PermissionGuard(cwd, { read: ["**", ".env.example"] }, undefined).readablePath(".env")).toThrow(
      /not permitted/,
    );
    const excluding = new PermissionGuard(cwd, { read: ["**", "!secret/**"] }, undefined);
    expect(() => excluding.readablePath("SECRET/key")).toThrow(/not permitted/);
    expect(() => new PermissionGuard(cwd, { write: ["out/**"] }, undefined).writablePath("OUT/x")).toThrow(
      /not permitted/,
    );
  });

  it("a symlink inside the allowed area that points outside does not escape, for reads and writes", () => {
    const outside = temporaryFolder("prosec-outside-");
    const cwd = project();
    symlinkSync(outside, join(cwd, "sub", "out-link"));
    symlinkSync(join(cwd, ".git-real"), join(cwd, "sub", "git-link"));
    const guard = new PermissionGuard(cwd, { read: ["**"], write: ["**"] }, undefined);
    expect(() => guard.readablePath("sub/out-link/x")).toThrow(/outside the working directory/);
    expect(() => guard.writablePath("sub/out-link/new/file")).toThrow(/outside the working directory/);
    mkdirSync(join(cwd, ".git"));
    symlinkSync(join(cwd, ".git"), join(cwd, "sub", "dotgit"));
    expect(() => guard.writablePath("sub/dotgit/config")).toThrow(/not permitted/);
  });
});
