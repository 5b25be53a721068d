// Preloaded into a `prosec run` process (`node --import`): counts the bytes it writes to files, by
// wrapping the fs functions the runtime writes with (synchronous appends, whole-file writes), and at
// exit writes the count to $PROSEC_BENCH_WRITES. Standard output and error are not counted.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

let bytes = 0;
const size = (data) => (typeof data === "string" ? Buffer.byteLength(data) : (data?.byteLength ?? 0));
const { writeSync, writeFileSync, writeFile, appendFileSync } = fs;

fs.writeSync = function (fd, buffer, ...rest) {
  const written = writeSync.call(this, fd, buffer, ...rest);
  if (fd > 2) bytes += written;
  return written;
};
fs.writeFileSync = function (path, data, ...rest) {
  bytes += size(data);
  return writeFileSync.call(this, path, data, ...rest);
};
fs.appendFileSync = function (path, data, ...rest) {
  bytes += size(data);
  return appendFileSync.call(this, path, data, ...rest);
};
fs.writeFile = function (path, data, ...rest) {
  bytes += size(data);
  return writeFile.call(this, path, data, ...rest);
};
syncBuiltinESMExports();

process.on("exit", () => writeFileSync(process.env.PROSEC_BENCH_WRITES, String(bytes)));
