import { randomBytes } from "node:crypto";

/** `YYYYMMDD-HHMMSS-xxxxxx` in UTC (filesystem.md, "Run ID Format"). */
export function newRunId(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  const date = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  return `${date}-${time}-${randomBytes(3).toString("hex")}`;
}
