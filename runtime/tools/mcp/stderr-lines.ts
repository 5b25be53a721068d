/**
 * A stdio MCP server's stderr as whole lines, and a bounded amount of it. Redaction reads one piece
 * at a time, and a pipe cuts a server's output wherever it likes (a read of 64 KB, a write in two
 * parts): a secret cut in two is no secret to either half, so what leaves here is whole lines. A line
 * that never ends is passed on in pieces past PIECE_CHARACTERS, all but its last HELD_CHARACTERS
 * (longer than any secret) so a secret at the cut reaches the next piece whole. A server that floods
 * its stderr fills neither the run's trace nor the worker's log: past LIMIT_CHARACTERS, what it says
 * is dropped, and that is said once.
 */

const PIECE_CHARACTERS = 64 * 1024;
const HELD_CHARACTERS = 4 * 1024;
/** How much of one server's stderr is kept. */
export const STDERR_LIMIT_CHARACTERS = 1024 * 1024;

export class StderrLines {
  private pending = "";
  private passed = 0;
  private full = false;

  constructor(
    /** Whole lines (newline included), or a long line's piece; never a cut secret. */
    private readonly emit: (text: string) => void,
    private readonly limit = STDERR_LIMIT_CHARACTERS,
  ) {}

  /** A piece of stderr as the pipe delivered it. */
  push(text: string): void {
    if (this.full) return;
    this.pending += text;
    const end = this.pending.lastIndexOf("\n") + 1;
    if (end > 0) {
      this.pass(this.pending.slice(0, end));
      this.pending = this.pending.slice(end);
    }
    if (this.pending.length > PIECE_CHARACTERS) {
      const cut = this.pending.length - HELD_CHARACTERS;
      this.pass(this.pending.slice(0, cut));
      this.pending = this.pending.slice(cut);
    }
  }

  /** The stream ended: what is left of a last line without its newline. */
  end(): void {
    if (this.pending !== "" && !this.full) this.pass(this.pending);
    this.pending = "";
  }

  private pass(text: string): void {
    if (this.full) return;
    if (this.passed + text.length > this.limit) {
      this.full = true;
      this.pending = "";
      this.emit(
        `[prosec: this server's stderr passed ${this.limit.toLocaleString("en-US")} characters; the rest is not kept]\n`,
      );
      return;
    }
    this.passed += text.length;
    this.emit(text);
  }
}
