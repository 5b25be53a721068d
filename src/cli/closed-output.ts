/**
 * A reader that stops reading (`prosec check --format json | head`) closes the pipe, and the next
 * write fails with EPIPE. That ends the command quietly, as a closed pipe ends any Unix tool: no
 * stack trace. A run (which listens for SIGTERM) winds down as if interrupted; anything else exits.
 */
import { EXIT } from "../exit-codes.js";

let installed = false;

export function endQuietlyWhenOutputCloses(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      if (process.listenerCount("SIGTERM") > 0) process.emit("SIGTERM");
      else process.exit(EXIT.interrupted);
    });
  }
}
