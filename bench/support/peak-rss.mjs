// Loaded with `--import` into a measured process: writes its peak RSS in MB to $PROSEC_PEAK_RSS_FILE at exit.
import { writeFileSync } from "node:fs";

process.on("exit", () =>
  writeFileSync(process.env.PROSEC_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS / 1024)),
);
