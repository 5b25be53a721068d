// Loaded with `--import` (or NODE_OPTIONS) into a measured process: writes its peak resident memory
// (VmHWM, in MB) to $PROSEC_VMHWM_FILE at exit.
import { readFileSync, writeFileSync } from "node:fs";

process.on("exit", () => {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN);
  writeFileSync(process.env.PROSEC_VMHWM_FILE, String(kb / 1024));
});
