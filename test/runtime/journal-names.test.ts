/**
 * Step scheme 4 renamed two journal fields (`step` → `structure`, `requestHash` → `request`): records
 * written before it are read under the new names, so a run recorded then resumes (the CLI side is in
 * test/run/run-state.slow.test.ts, with the same fixture).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseJournal, recordLine } from "../../runtime/durable/file-journal.js";

const SCHEME_3_JOURNAL = fileURLToPath(
  new URL("../fixtures/runs/scheme-3/20261128-124756-0d2367/journal.jsonl", import.meta.url),
);

describe("journal records written before step scheme 4", () => {
  it("read a scheme-3 run's `step` and `requestHash` as `structure` and `request`", () => {
    const text = readFileSync(SCHEME_3_JOURNAL, "utf8");
    const written = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const { records } = parseJournal(text, SCHEME_3_JOURNAL, 0);
    expect(records).toHaveLength(16);
    records.forEach((record, index) => {
      expect(record.structure).toBe(written[index]!["step"]);
      expect(record.request).toBe(written[index]!["requestHash"]);
      expect(record).not.toHaveProperty("step");
      expect(record).not.toHaveProperty("requestHash");
    });
    expect(records[0]!.structure).toBe("/parallel@s3~1#0/b0/session:history#0");
  });

  it("read a session's turn records' `step` as `structure`, and keep a record that names both by its new name", () => {
    const text =
      recordLine({ key: "/session@4:1#0", turn: { type: "restart" }, step: "/session:draft#0", fingerprint: "a-b-c" }) +
      recordLine({ key: "/x", kind: "session", value: "v", usage: [], structure: "/new", step: "/old" });
    const { lines } = parseJournal(text, "journal.jsonl");
    expect(lines[0]).toMatchObject({ structure: "/session:draft#0", fingerprint: "a-b-c" });
    expect(lines[0]).not.toHaveProperty("step");
    expect(lines[1]).toMatchObject({ structure: "/new" });
    expect(lines[1]).not.toHaveProperty("step");
  });
});
