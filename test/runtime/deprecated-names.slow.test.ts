/**
 * The names `prosec/runtime` exported in 0.2 for the step store (`Durability`, `StepIdentity`,
 * `JournalDurability`, `MemoryJournal`) are deprecated aliases until 0.4: an application written
 * against them still type-checks (each use marked deprecated) and runs. Slow: it type-checks the
 * runtime's sources.
 */
import { join } from "node:path";
import { Project, ts } from "ts-morph";
import { afterEach, describe, expect, it } from "vitest";
import { JournalStepStore } from "../../runtime/durable/durability.js";
import { JournalDurability, MemoryJournal } from "../../runtime/index.js";
import { startFakeAnthropic, type FakeServer } from "../support/fake-anthropic.js";
import { at, runAgainst } from "./helpers.js";

const repository = join(import.meta.dirname, "..", "..");

/** An application of prosec 0.2 that names its step store (a file beside this one, in memory only). */
const APPLICATION = `
import {
  JournalDurability,
  MemoryJournal,
  type Durability,
  type DurableStep,
  type RecordedStep,
  type RunOptions,
  type StepIdentity,
} from "../../runtime/index.js";

/** Counts the steps a run records, over prosec's own store. */
class CountingStore implements Durability {
  steps = 0;
  constructor(private readonly inner: Durability) {}
  step(identity: StepIdentity, execute: () => Promise<RecordedStep>): Promise<DurableStep> {
    this.steps++;
    return this.inner.step(identity, execute);
  }
  branch<T extends import("../../runtime/index.js").Value>(site: string, body: () => Promise<T>): Promise<T> {
    return this.inner.branch(site, body);
  }
  scope(): string {
    return this.inner.scope();
  }
}

const journal: MemoryJournal = new MemoryJournal();
const store: JournalDurability = new JournalDurability(journal);
export const options: RunOptions = { durability: new CountingStore(store) };
export const anchorOf = (identity: StepIdentity): string => identity.anchor + identity.fingerprint;
export const recorded = (): number => journal.steps.size;
`;

let project: Project | undefined;
let checked = 0;

/** Type-checks `text` as a file of an application; its errors, and the names TypeScript calls deprecated (6385, 6387). */
function check(text: string): { errors: string[]; deprecated: string[] } {
  project ??= new Project({ tsConfigFilePath: join(repository, "tsconfig.json"), skipAddingFilesFromTsConfig: true });
  const file = project.createSourceFile(join(repository, "test", "runtime", `application-${checked++}.ts`), text);
  project.resolveSourceFileDependencies();
  const errors = file
    .getPreEmitDiagnostics()
    .map((diagnostic) =>
      ts.flattenDiagnosticMessageText(diagnostic.getMessageText() as string | ts.DiagnosticMessageChain, "\n"),
    );
  const deprecated = project
    .getLanguageService()
    .compilerObject.getSuggestionDiagnostics(file.getFilePath())
    .filter((diagnostic) => diagnostic.code === 6385 || diagnostic.code === 6387)
    .map((diagnostic) => text.slice(diagnostic.start!, diagnostic.start! + diagnostic.length!).replace(/^type /, ""));
  return { errors, deprecated };
}

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the step store's names of prosec 0.2", () => {
  it("still type-check in an application that uses them, each marked deprecated", () => {
    const { errors, deprecated } = check(APPLICATION);
    expect(errors).toEqual([]);
    expect(new Set(deprecated)).toEqual(new Set(["Durability", "StepIdentity", "JournalDurability", "MemoryJournal"]));
  });

  it("are checked, not `any`: a wrong use of them is an error", () => {
    const { errors } = check(`import type { StepIdentity } from "../../runtime/index.js";
export const wrong = (identity: StepIdentity): number => identity.anchor;`);
    expect(errors).toEqual([expect.stringContaining("Type 'string' is not assignable to type 'number'")]);
  });

  it("run: a JournalDurability over a MemoryJournal records the run's steps", async () => {
    expect(JournalDurability).toBe(JournalStepStore);
    server = await startFakeAnthropic({
      respond: () => ({ kind: "message", content: [{ type: "text", text: "done" }] }),
    });
    const journal = new MemoryJournal();
    const { result } = await runAgainst(server, (rt) => rt.session({ at: at(1), prompt: "Say done" }), {
      durability: new JournalDurability(journal),
    });
    expect(result).toBe("done");
    expect([...journal.steps.values()].map((step) => step.value)).toEqual(["done"]);
  });
});
