/**
 * A long finished run written straight into a run folder, in the formats `prosec run` writes (the
 * journal, docs/trace.md's trace, run.json, state.md, spent.json): one step per iteration of a
 * `repeat`, each in a lane of its own, each asked its own prompt. Quicker than running a thousand model
 * calls in every test, and larger than a committed fixture should be.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TraceRecord, TraceText } from "../../runtime/durable/trace-format.js";

export interface LongRun {
  readonly runId: string;
  readonly dir: string;
  readonly keys: readonly string[];
  /** The prompt step i was sent (a text of its own in the trace). */
  prompt(index: number): string;
}

const MODEL = "claude-sonnet-5-5";
const SOURCE = 'repeat 2000:\n  session "Count the lanes of the timeline"\n';

export function writeLongRun(cwd: string, steps: number): LongRun {
  const runId = "20260101-000000-a0b1c2";
  const dir = join(cwd, ".prose", "runs", runId);
  mkdirSync(join(dir, "trace"), { recursive: true });
  const started = Date.parse("2026-01-01T00:00:00.000Z");
  const prompt = (index: number): string => `Step ${index}: count the lanes of the timeline`;
  const keys = Array.from({ length: steps }, (_, index) => `/repeat@1:1#0/i${index}/session@2:3#0`);
  const texts: TraceText[] = [
    { id: "system0000000000", text: "You are an agent working inside the OpenProse program long." },
    { id: "answer0000000000", text: "Counted." },
  ];
  const trace: TraceRecord[] = [{ e: "run", v: 1, t: started, pid: 1 }];
  const journal: string[] = [];
  keys.forEach((key, index) => {
    const s = index + 1;
    const t = started + index * 10;
    const promptId = `prompt${String(index).padStart(10, "0")}`;
    texts.push({ id: promptId, text: prompt(index) });
    trace.push(
      { e: "start", s, key, kind: "session", line: 2, column: 3, label: `Step ${index}`, t },
      {
        e: "request",
        s,
        n: 1,
        t: t + 1,
        ms: 7,
        model: MODEL,
        system: ["system0000000000"],
        messages: [{ role: "user", content: [{ text: promptId }] }],
        answer: [{ text: "answer0000000000" }],
        stop: "end_turn",
        usage: { inputTokens: 100, outputTokens: 2 },
      },
      { e: "end", s, t: t + 8, ok: true, retries: 0, value: "answer0000000000" },
    );
    journal.push(
      JSON.stringify({
        key,
        kind: "session",
        value: "Counted.",
        usage: [{ model: MODEL, inputTokens: 100, outputTokens: 2 }],
      }),
    );
  });
  const lines = (records: readonly unknown[]): string =>
    records.map((record) => `${JSON.stringify(record)}\n`).join("");
  writeFileSync(join(dir, "trace", "steps.jsonl"), lines(trace));
  writeFileSync(join(dir, "trace", "texts.jsonl"), lines(texts));
  writeFileSync(join(dir, "journal.jsonl"), journal.map((line) => `${line}\n`).join(""));
  writeFileSync(join(dir, "program.prose"), SOURCE);
  writeFileSync(
    join(dir, "run.json"),
    JSON.stringify({ runId, program: "long", source: "long.prose", startedAt: new Date(started).toISOString() }),
  );
  writeFileSync(join(dir, "state.md"), `# Execution State\n\nrun: ${runId}\nprogram: long.prose\nstatus: complete\n`);
  writeFileSync(join(dir, "spent.json"), JSON.stringify({ dollars: steps * 0.00033, calls: steps }));
  return { runId, dir, keys, prompt };
}
