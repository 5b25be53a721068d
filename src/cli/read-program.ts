import { readFileSync } from "node:fs";
import { UsageError } from "./find-programs.js";

/** Reads a program as UTF-8, turning file-system failures into a message for the user. */
export function readProgram(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "EISDIR" ? "is a folder" : "cannot be read";
    throw new UsageError(`${file}: ${reason}`);
  }
}
