/**
 * examples/app, set up the way a user sets up an app that imports compiled workflows: its committed
 * modules are up to date, it type-checks in strict mode against `prosec/runtime` resolved as an
 * installed `file:` dependency, wrong uses of the generated types really are compile errors, the
 * built app runs both workflows against the fake Messages API, one's output feeding the other, and
 * its own tests pass: a golden run replayed by `prosec test`, and scripted-model tests under node:test.
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  lastUserText,
  reply,
  startFakeAnthropic,
  type FakeReply,
  type FakeRequest,
  type FakeServer,
} from "../support/fake-anthropic.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = join(root, "examples/app");
const tscBin = join(root, "node_modules/typescript/bin/tsc");
const prosecBin = join(root, "bin/prosec");
const API_KEY = "sk-ant-example-app-test-key";
const SLOW = 180_000;

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a process without blocking this one (the fake server answers from this event loop). */
function exec(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd ?? root,
      env: { ...(options.env ?? process.env), NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

const node = (args: readonly string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }) =>
  exec(process.execPath, args, options);
const tsc = (...args: string[]) => node([tscBin, "--pretty", "false", ...args]);

/** Scratch folders live inside the app, so `prosec` and the app's tsconfig resolve from them as from src/. */
const scratch: string[] = [];
function scratchFolder(): string {
  const folder = mkdtempSync(join(app, ".tmp-"));
  scratch.push(folder);
  return folder;
}

beforeAll(() => {
  for (const built of ["dist/runtime/index.js", "dist/runtime/index.d.ts"]) {
    if (!existsSync(join(root, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (\`npm test\` does)`);
  }
  // What `npm install` does for `"prosec": "file:../.."`: a symlink to the package folder.
  const link = join(app, "node_modules/prosec");
  mkdirSync(dirname(link), { recursive: true });
  try {
    symlinkSync("../../..", link, "dir");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (realpathSync(link) !== realpathSync(root))
    throw new Error(`${link} exists but is not a link to the repository root`);
});

afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

/** The app built by its own tsconfig.build.json into a scratch folder (once per file). */
let built: Promise<string> | undefined;
function buildApp(): Promise<string> {
  built ??= (async () => {
    const folder = scratchFolder();
    const result = await tsc("-p", join(app, "tsconfig.build.json"), "--outDir", join(folder, "dist"));
    expect(result.stdout).toBe("");
    expect(result.code).toBe(0);
    return folder;
  })();
  return built;
}

describe("examples/app", () => {
  it("has no diagnostics and its committed modules are up to date (prosec build --check)", async () => {
    const check = await node([prosecBin, "check", "--strict", "examples/app"]);
    expect(check.stdout + check.stderr).toMatch(/0 errors, 0 warnings/);
    expect(check.code).toBe(0);
    const build = await node([prosecBin, "build", "--check", "examples/app/src"]);
    expect(
      build.code,
      `${build.stdout}${build.stderr}\nrun \`node bin/prosec build examples/app/src\` and commit the modules`,
    ).toBe(0);
  });

  it(
    "type-checks in strict mode against prosec/runtime resolved through the installed package",
    async () => {
      const result = await tsc("-p", join(app, "tsconfig.json"), "--listFiles");
      expect(
        result.stdout.split("\n").filter((line) => line.includes("error TS")),
        result.stdout,
      ).toEqual([]);
      expect(result.code).toBe(0);
      // The runtime's types came through package.json `exports` (dist/, a link to the build's folder), as in
      // an installed app.
      const files = result.stdout.split("\n").map((line) => line.trim().replaceAll("\\", "/"));
      expect(
        files.filter(
          (file) => /\/(dist|\.dist\/[^/]+)\/runtime\/index\.d\.ts$/.test(file) && !file.includes("/node_modules/"),
        ),
        result.stdout,
      ).toHaveLength(1);
      expect(
        files.filter((file) => file.endsWith("/examples/app/src/workflows/newsletter.prose.ts")),
        result.stdout,
      ).toHaveLength(1);
    },
    SLOW,
  );

  it(
    "reports each misuse in src/type-errors.ts as the error it is marked with, once the directives are removed",
    async () => {
      const source = readFileSync(join(app, "src/type-errors.ts"), "utf8").split("\n");
      const expected: string[] = [];
      const stripped = source.map((line, index) => {
        const directive = /^(\s*)\/\/ @ts-expect-error (TS\d+)\b/.exec(line);
        if (directive === null) return line;
        expected.push(`${index + 2} ${directive[2]}`); // the error is on the next line (1-based: index + 2)
        return `${directive[1]}// (directive removed by the test)`;
      });
      expect(expected.map((entry) => entry.split(" ")[1])).toEqual(
        expect.arrayContaining(["TS2322", "TS2345", "TS2339"]),
      );

      const folder = scratchFolder();
      writeFileSync(
        join(folder, "type-errors.ts"),
        stripped.join("\n").replaceAll('"./workflows/', '"../src/workflows/'),
      );
      // A fresh caller with a wrong input type for the other workflow, written the way a user would.
      writeFileSync(
        join(folder, "caller.ts"),
        [
          'import { run } from "../src/workflows/newsletter.prose.js";',
          'export const issue = run({ brief: new Date(), audience: "homeowners" });',
          "",
        ].join("\n"),
      );
      writeFileSync(
        join(folder, "tsconfig.json"),
        JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { rootDir: ".." }, include: ["./*.ts"] }),
      );

      const result = await tsc("-p", join(folder, "tsconfig.json"));
      expect(result.code).not.toBe(0);
      const errors = [...result.stdout.matchAll(/^(.*?)\((\d+),\d+\): error (TS\d+):/gm)].map(
        ([, file, line, code]) => ({ file: file!.split(/[\\/]/).pop()!, line: Number(line), code: code! }),
      );
      const inTypeErrors = errors
        .filter((error) => error.file === "type-errors.ts")
        .map((error) => `${error.line} ${error.code}`);
      expect(inTypeErrors.sort(), result.stdout).toEqual([...expected].sort());
      expect(
        errors.filter((error) => error.file === "caller.ts").map((error) => error.code),
        result.stdout,
      ).toEqual(["TS2322"]);
      expect(
        errors.filter((error) => error.file !== "type-errors.ts" && error.file !== "caller.ts"),
        result.stdout,
      ).toEqual([]);
    },
    SLOW,
  );

  describe("running the built app against the fake Messages API", () => {
    let server: FakeServer | undefined;
    afterAll(async () => server?.close());

    /** Answers each prompt of the two workflows with a marker, so the test can follow values through. */
    function respond(request: FakeRequest): FakeReply {
      const prompt = lastUserText(request);
      const whole = JSON.stringify(request.body ?? {});
      if (request.body?.tool_choice !== undefined) {
        const ready = whole.includes("REVISED-ISSUE");
        return reply.toolUse([
          { name: "answer", input: { answer: ready, reason: ready ? "the feedback was applied" : "not revised yet" } },
        ]);
      }
      if (prompt.includes("Summarise the background of")) return reply.text("- BACKGROUND-NOTE");
      if (prompt.includes("What changed in")) return reply.text("RECENT-NOTE");
      if (prompt.includes("List the main open questions")) return reply.text("RISKS-NOTE");
      if (prompt.includes("Write a one-page brief")) return reply.text("BRIEF-MARKER: solid-state cells are close");
      if (prompt.includes("Write a single-sentence headline"))
        return reply.text(whole.includes("BRIEF-MARKER") ? "HEADLINE-MARKER" : "headline without a brief");
      if (prompt.includes("Write a newsletter issue for"))
        return reply.text(
          whole.includes("BRIEF-MARKER") ? "FIRST-DRAFT citing BRIEF-MARKER" : "FIRST-DRAFT without the brief",
        );
      if (prompt.includes("Review this draft for")) return reply.text("FEEDBACK-MARKER: cut the second paragraph");
      if (prompt.includes("Revise the issue")) {
        const applied = whole.includes("FEEDBACK-MARKER") && whole.includes("BRIEF-MARKER");
        return reply.text(
          applied
            ? "REVISED-ISSUE citing BRIEF-MARKER after FEEDBACK-MARKER"
            : "REVISED-ISSUE that lost the brief or the feedback",
        );
      }
      return reply.error(400, { message: `unexpected prompt: ${prompt.slice(0, 200)}` });
    }

    it(
      "passes the research brief into the newsletter workflow and returns the revised issue",
      async () => {
        const folder = await buildApp();

        server = await startFakeAnthropic({ respond });
        const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url };
        delete env["ANTHROPIC_AUTH_TOKEN"];
        for (const name of Object.keys(env)) if (name.startsWith("PROSEC_MODEL_")) delete env[name];
        const ran = await node([join(folder, "dist/main.js"), "solid-state batteries", "field engineers", "--json"], {
          cwd: folder,
          env,
        });
        expect(ran.code, ran.stderr).toBe(0);

        const issue = JSON.parse(ran.stdout.trim().split("\n").pop() ?? "null") as unknown;
        expect(issue).toEqual({
          headline: "HEADLINE-MARKER",
          brief: "BRIEF-MARKER: solid-state cells are close",
          issue: "REVISED-ISSUE citing BRIEF-MARKER after FEEDBACK-MARKER",
          revisions: 1,
        });

        const requests = server.requests;
        const prompts = requests.map(lastUserText);
        const first = (text: string) => prompts.findIndex((prompt) => prompt.includes(text));
        // Every request used the key from the environment, sent to the base URL from the environment.
        expect(requests.length).toBeGreaterThanOrEqual(8);
        for (const request of requests)
          expect([request.headers["x-api-key"], request.headers["authorization"]].join(" ")).toContain(API_KEY);
        // research.prose: three parallel branches on the input topic, then the brief over all three.
        const branches = [
          "Summarise the background of solid-state batteries",
          "What changed in solid-state batteries",
          "List the main open questions and risks in solid-state batteries",
        ];
        for (const branch of branches) expect(prompts.filter((prompt) => prompt.includes(branch))).toHaveLength(1);
        const brief = first("Write a one-page brief on solid-state batteries for field engineers.");
        expect(brief).toBeGreaterThan(Math.max(...branches.map(first)));
        for (const note of ["BACKGROUND-NOTE", "RECENT-NOTE", "RISKS-NOTE"]) expect(prompts[brief]).toContain(note);
        // newsletter.prose: the first draft is written from research's `brief` output and the audience input.
        const draft = first("Write a newsletter issue for field engineers");
        expect(draft).toBeGreaterThan(brief);
        expect(prompts[draft]).toContain("BRIEF-MARKER");
        // critique.prose, called from the loop, reviewed that draft; the revision used its feedback.
        const review = first("Review this draft for field engineers");
        expect(review).toBeGreaterThan(draft);
        expect(prompts[review]).toContain("FIRST-DRAFT citing BRIEF-MARKER");
        expect(first("Revise the issue")).toBeGreaterThan(review);
        expect(requests.filter((request) => request.body?.tool_choice !== undefined).length).toBeGreaterThanOrEqual(1);
      },
      SLOW,
    );
  });

  describe("its tests, which never reach a model", () => {
    /** Neither a key nor a reachable server: any request would fail. */
    const offline = (): NodeJS.ProcessEnv => ({
      ...process.env,
      ANTHROPIC_API_KEY: "",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    });

    it(
      "replays the golden run in tests/ with prosec test, and fails it once an expected output is changed",
      async () => {
        const passed = await node([prosecBin, "test"], { cwd: app, env: offline() });
        expect(passed.stdout).toBe(
          "✓ tests/newsletter.golden (src/workflows/newsletter.prose)\n\n1 passed, 0 failed\n",
        );
        expect(passed.code).toBe(0);

        const folder = scratchFolder();
        const copy = join(folder, "newsletter.golden");
        cpSync(join(app, "tests/newsletter.golden"), copy, { recursive: true });
        const expected = JSON.parse(readFileSync(join(copy, "expected.json"), "utf8")) as {
          outputs: Record<string, unknown>;
        };
        writeFileSync(
          join(copy, "expected.json"),
          JSON.stringify({ ...expected, outputs: { ...expected.outputs, "revision-count": 2 } }),
        );
        const failed = await node([prosecBin, "test", copy], { cwd: app, env: offline() });
        expect(failed.stdout).toContain('    output "revision-count" differs\n      expected: 2\n      actual:   1\n');
        expect(failed.stdout.trimEnd().split("\n").pop()).toBe("0 passed, 1 failed");
        expect(failed.code).toBe(1);
      },
      SLOW,
    );

    it(
      "runs the scripted-model tests with node:test, asserting what the publish judgment saw",
      async () => {
        const folder = await buildApp();
        const result = await node(["--test", join(folder, "dist/workflows.test.js")], { cwd: folder, env: offline() });
        expect(result.stdout).toContain(
          "ok 1 - the publish judgment sees the first draft, then the revision made from the critic's feedback",
        );
        expect(result.stdout).toContain(
          "ok 2 - the brief is written from all three research angles, which ran side by side",
        );
        expect(result.stdout).toContain(
          "ok 3 - a typed result: the scripted model answers with values of the declared type, and the app reads them without a cast",
        );
        expect(result.stdout).toMatch(/# pass 3\n# fail 0\n/);
        expect(result.code, result.stdout + result.stderr).toBe(0);
      },
      SLOW,
    );
  });
});
