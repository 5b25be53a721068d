/**
 * Run before every test file (vitest's setupFiles), in the file's own scope: the hooks each file needs.
 * A module's top-level hook would be registered by the first file that imports it only, where workers
 * share modules between files (the fast loop's `isolate: false`).
 */
import { afterAll } from "vitest";
import { removeTemporaryFolders } from "./temp.js";

afterAll(removeTemporaryFolders);
