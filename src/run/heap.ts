/**
 * How much garbage `prosec run` lets pile up. A run's live heap stays small (about 50 MB at 10,000
 * sessions, 64 at a time), but every request leaves objects that outlive a young-generation
 * collection, and V8's default lets the old generation grow to several times what is live before it
 * collects: 300 MB of resident memory for 50 MB of live data. Growing the heap by half of what
 * survived each full collection instead keeps the peak near 200 MB, for a few more collections of a
 * small heap (a run waits on the network, not on the CPU).
 */
import { setFlagsFromString } from "node:v8";

/** How much the heap may grow past what survived the last full collection, in percent. */
const HEAP_GROWING_PERCENT = 50;

/** Applies to this process from now on; V8 reads the setting at every full collection. */
export function keepHeapNearLiveSize(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
