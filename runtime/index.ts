/**
 * `prosec/runtime`: what generated workflow modules import.
 */
export type * from "./types.js";
