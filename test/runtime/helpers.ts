import { defineProgram, startRun, type RunOptions } from "../../runtime/index.js";
import type { ProgramInfo, RunEvent, Runtime, Site } from "../../runtime/types.js";
import type { FakeServer } from "../support/fake-anthropic.js";
import { temporaryFolder } from "../support/temp.js";

export const TEST_API_KEY = "sk-ant-test-SECRET-0123456789abcdef";

export const program: ProgramInfo = defineProgram({
  name: "test-program",
  source: "examples/test-program.prose",
  sourceHash: "0".repeat(64),
  compilerVersion: "0.0.0",
  inputs: [],
  outputs: [],
});

export const at = (line: number, column = 1): Site => ({ line, column });

export { temporaryFolder };

export interface TestRun<O> {
  readonly result: O;
  readonly events: RunEvent[];
}

/** Runs `body` against the fake server with the real SDK client; collects the events. */
export async function runAgainst<O>(
  server: FakeServer,
  body: (rt: Runtime) => Promise<O>,
  options: RunOptions = {},
  inputs: Record<string, unknown> = {},
): Promise<TestRun<O>> {
  const events: RunEvent[] = [];
  const result = await startRun(
    program,
    inputs,
    {
      apiKey: TEST_API_KEY,
      baseURL: server.url,
      maxRetries: 0,
      cwd: temporaryFolder("prosec-runtime-"),
      ...options,
      onEvent: (event) => {
        events.push(event);
        options.onEvent?.(event);
      },
    },
    body,
  );
  return { result, events };
}

/** Like runAgainst, but resolves with the rejection and the events of a run that must fail. */
export async function failingRun(
  server: FakeServer,
  body: (rt: Runtime) => Promise<unknown>,
  options: RunOptions = {},
  inputs: Record<string, unknown> = {},
): Promise<{ error: Error; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  try {
    await startRun(
      program,
      inputs,
      {
        apiKey: TEST_API_KEY,
        baseURL: server.url,
        maxRetries: 0,
        cwd: temporaryFolder("prosec-runtime-"),
        ...options,
        onEvent: (event) => events.push(event),
      },
      body,
    );
  } catch (error) {
    return { error: error as Error, events };
  }
  throw new Error("the run was expected to fail");
}
