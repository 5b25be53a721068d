// Loaded with `--import` into a measured process: writes the CPU time it used (user + system, in ms)
// to $PROSEC_CPU_FILE at exit.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const usage = process.resourceUsage();
  writeFileSync(process.env.PROSEC_CPU_FILE, String((usage.userCPUTime + usage.systemCPUTime) / 1000));
});
