// Preloaded into a `prosec run` process (`node --import`): counts the bytes it writes to files, by
// wrapping the fs functions the runtime writes with (appends to the journal, whole-file writes,
// appends to memory), and at exit writes the counts, by kind of file, as JSON to $PROSEC_BENCH_WRITES.
// Standard output and error are not counted.
import fs from "node:fs";
import promises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";

const counts = { journal: 0, "state.md": 0, bindings: 0, agents: 0, other: 0 };
const size = (data) => (typeof data === "string" ? Buffer.byteLength(data) : (data?.byteLength ?? 0));
const kind = (path) => {
  const text = String(path);
  if (text.includes("/bindings/")) return "bindings";
  if (text.includes("/agents/")) return "agents";
  if (/\/state\.md(\.|$)/.test(text)) return "state.md";
  return "other";
};
const { writeSync, writeFileSync, writeFile, appendFileSync } = fs;
const { appendFile } = promises;

fs.writeSync = function (fd, buffer, ...rest) {
  const written = writeSync.call(this, fd, buffer, ...rest);
  // The runtime writes by descriptor only to the journal.
  if (fd > 2) counts.journal += written;
  return written;
};
fs.writeFileSync = function (path, data, ...rest) {
  counts[kind(path)] += size(data);
  return writeFileSync.call(this, path, data, ...rest);
};
fs.appendFileSync = function (path, data, ...rest) {
  counts[kind(path)] += size(data);
  return appendFileSync.call(this, path, data, ...rest);
};
fs.writeFile = function (path, data, ...rest) {
  counts[kind(path)] += size(data);
  return writeFile.call(this, path, data, ...rest);
};
promises.appendFile = function (path, data, ...rest) {
  counts[kind(path)] += size(data);
  return appendFile.call(this, path, data, ...rest);
};
syncBuiltinESMExports();

process.on("exit", () => writeFileSync(process.env.PROSEC_BENCH_WRITES, JSON.stringify(counts)));
