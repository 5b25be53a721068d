/**
 * Names `prosec/runtime` exported in 0.2 that it no longer offers, kept for one minor version
 * (removed in 0.4; CHANGELOG.md). They name the step store and the step address of `address/`:
 * an application passes `RunOptions.journal` or `durability` and never needs to name the defaults.
 */
import { JournalStepStore } from "./durable/durability.js";
import { MemoryJournal as InMemoryJournal } from "./durable/journal.js";
import type { StepAddress, StepStore } from "./types.js";

/** @deprecated Renamed `StepStore`, whose `step(address, execute)` takes a `StepAddress`; removed in prosec 0.4. */
export type Durability = StepStore;

/**
 * @deprecated Renamed `StepAddress`: its structural `key` is now `structure`, its `requestHash` is
 * `request`, and it has the step's `site`; removed in prosec 0.4.
 */
export type StepIdentity = StepAddress;

/** @deprecated Renamed `JournalStepStore`; leave `RunOptions.durability` out to get one. Removed in prosec 0.4. */
export const JournalDurability = JournalStepStore;
/** @deprecated Renamed `JournalStepStore`; removed in prosec 0.4. */
export type JournalDurability = JournalStepStore;

/** @deprecated A run without `RunOptions.journal` keeps its steps in memory already; removed from `prosec/runtime` in 0.4. */
export const MemoryJournal = InMemoryJournal;
/** @deprecated A run without `RunOptions.journal` keeps its steps in memory already; removed from `prosec/runtime` in 0.4. */
export type MemoryJournal = InMemoryJournal;
