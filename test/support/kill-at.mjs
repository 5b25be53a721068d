// Preloaded into `prosec run` (NODE_OPTIONS="--import <this file>") by test/run/kill-points.slow.test.ts:
// kills the process with SIGKILL at an exact point of its writes, as a crash would, given by
// PROSEC_KILL_AT:
//   journal:N        just after the Nth append to journal.jsonl
//   torn:N           half-way through the Nth append (the rest of the line never written)
//   rename:TEXT:N    just before the Nth rename onto a path containing TEXT (an atomic replace,
//                    its temporary file written, the file itself not yet replaced)
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const [mode = "", ...rest] = (process.env.PROSEC_KILL_AT ?? "").split(":");
const count = Number(rest.pop());
const text = rest.join(":");
let seen = 0;
const journals = new Set();
const die = () => process.kill(process.pid, "SIGKILL");
const { openSync, writeSync, renameSync, rename } = fs;

fs.openSync = function (path, ...args) {
  const fd = openSync.call(this, path, ...args);
  if (String(path).endsWith("journal.jsonl")) journals.add(fd);
  return fd;
};
fs.writeSync = function (fd, buffer, ...args) {
  if (!journals.has(fd) || (mode !== "journal" && mode !== "torn")) return writeSync.call(this, fd, buffer, ...args);
  seen++;
  if (mode === "torn" && seen === count) {
    writeSync.call(this, fd, Buffer.from(buffer).subarray(0, Math.floor(buffer.length / 2)));
    die();
  }
  const written = writeSync.call(this, fd, buffer, ...args);
  if (seen === count) die();
  return written;
};
const renaming = (to) => mode === "rename" && String(to).includes(text) && ++seen === count;
fs.renameSync = function (from, to) {
  if (renaming(to)) die();
  return renameSync.call(this, from, to);
};
fs.rename = function (from, to, callback) {
  if (renaming(to)) die();
  return rename.call(this, from, to, callback);
};
syncBuiltinESMExports();
