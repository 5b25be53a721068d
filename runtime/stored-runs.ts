/**
 * The face for runs at rest, for prosec's CLI (src/runs/, golden tests, `init`): how a run's folder
 * is laid out and read (manifest, journal, trace, what it waits for, its lock, a fork of its
 * beginning), replaying it (golden tests) and recording one (`init`). Applications run programs
 * through `prosec/runtime`; nothing here is for generated code. The DBOS side is dbos-runs.ts: it
 * loads DBOS's SDK, which a folder run does not need.
 */
export { JOURNAL_FILE, journalLine, parseJournal, type JournalRecord } from "./durable/file-journal.js";
export { readManifest, STEP_SCHEME, REPLAYED_SCHEMES, type RunManifest } from "./durable/manifest.js";
export {
  TRACE_FOLDER,
  TRACE_STEPS_FILE,
  TRACE_TEXTS_FILE,
  type TracedBlock,
  type TraceEndRecord,
  type TraceRecord,
  type TraceRequestRecord,
  type TraceStartRecord,
} from "./durable/trace-format.js";
export { isCancelled, markCancelled, readWaiting, writeWaiting } from "./durable/run-control.js";
export { liveHolder, lockHolder, lockRun, unlockRun } from "./durable/run-lock.js";
export {
  answerName,
  matchAnswers,
  questionsNamed,
  waitingList,
  whereAsked,
  whereRecorded,
  type NamedQuestion,
} from "./durable/question-names.js";
export { forkRun, recordedLine } from "./durable/fork.js";
export { oddEntryIn, refuseLinks } from "./durable/folder-links.js";
export { openWrittenFile, readRunFile, UnexpectedFile } from "./durable/run-file.js";
export { safeName, writeFileAtomically } from "./durable/files.js";
export { newRunId } from "./run/run-id.js";
export { RunStateError } from "./errors.js";
export { text } from "./values/expressions.js";
export { makeDirectory } from "./make-directory.js";
export { JournalStepStore } from "./durable/durability.js";
export { APPROVAL_PREFIX } from "./tools/approvals.js";
export { anchorSubject } from "./address/anchors.js";
export { dedent } from "./model/prompt.js";
