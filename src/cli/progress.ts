/**
 * A one-line progress display for commands that can take long (`build` on a large program): shown on
 * a terminal only, and only once the command has run for a second, so quick builds print nothing
 * more than before. Each step replaces the line; `done` clears it before the summary is printed.
 * Compiling a large program keeps the event loop busy for seconds, so a timer alone would fire late:
 * a step reported after the second has passed shows the line at once.
 */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** Runs `show` after `ms`; returns a function that cancels it. */
export type Schedule = (show: () => void, ms: number) => () => void;

const SHOW_AFTER_MS = 1000;

const timer: Schedule = (show, ms) => {
  const handle = setTimeout(show, ms);
  handle.unref();
  return () => clearTimeout(handle);
};

export class Progress {
  private step: string | undefined;
  private shown = false;
  private readonly cancel: () => void;
  private readonly started: number;

  constructor(
    private readonly stream: ProgressStream,
    schedule: Schedule = timer,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.started = now();
    this.cancel = stream.isTTY === true ? schedule(() => this.show(), SHOW_AFTER_MS) : () => {};
  }

  /** What the command is doing now, e.g. `compiling big.prose`. */
  update(step: string): void {
    this.step = step;
    if (this.shown) this.draw();
    else if (this.stream.isTTY === true && this.now() - this.started >= SHOW_AFTER_MS) this.show();
  }

  done(): void {
    this.cancel();
    if (this.shown) this.stream.write("\r\x1b[K");
    this.shown = false;
  }

  private show(): void {
    this.shown = true;
    this.draw();
  }

  private draw(): void {
    if (this.step !== undefined) this.stream.write(`\r\x1b[K${this.step} …`);
  }
}
