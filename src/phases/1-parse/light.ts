/**
 * What is used of this phase without loading it (the scanner, the grammar): the edit distance
 * behind every "did you mean". index.ts exports it too.
 */
export { editDistance } from "./spelling.js";
