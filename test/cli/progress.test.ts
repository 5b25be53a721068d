import { describe, expect, it } from "vitest";
import { Progress, type Schedule } from "../../src/cli/progress.js";

/** A terminal that records what is written, and a schedule the test fires by hand. */
function setup(isTTY: boolean) {
  const written: string[] = [];
  const clock = { ms: 0 };
  let fire: (() => void) | undefined;
  let cancelled = false;
  const schedule: Schedule = (show) => {
    fire = show;
    return () => (cancelled = true);
  };
  const progress = new Progress({ isTTY, write: (text: string) => written.push(text) }, schedule, () => clock.ms);
  return {
    progress,
    written,
    clock,
    fire: () => fire?.(),
    scheduled: () => fire !== undefined,
    cancelled: () => cancelled,
  };
}

describe("build progress", () => {
  it("shows nothing before the delay has passed, then the current step, each step replacing the last, and clears the line at the end", () => {
    const { progress, written, fire, cancelled } = setup(true);
    progress.update("compiling big.prose");
    expect(written).toEqual([]);
    fire();
    expect(written).toEqual(["\r\x1b[Kcompiling big.prose …"]);
    progress.update("type-checking 1 module");
    expect(written.at(-1)).toBe("\r\x1b[Ktype-checking 1 module …");
    progress.done();
    expect(written.at(-1)).toBe("\r\x1b[K");
    expect(cancelled()).toBe(true);
  });

  it("a step reported after the delay shows at once, even when the timer could not fire (a busy event loop)", () => {
    const { progress, written, clock } = setup(true);
    progress.update("compiling big.prose");
    clock.ms = 999;
    progress.update("lowering big.prose");
    expect(written).toEqual([]);
    clock.ms = 1000;
    progress.update("formatting big.prose (1/3)");
    expect(written).toEqual(["\r\x1b[Kformatting big.prose (1/3) …"]);
  });

  it("a build that ends before the delay prints nothing", () => {
    const { progress, written } = setup(true);
    progress.update("compiling small.prose");
    progress.done();
    expect(written).toEqual([]);
  });

  it("is silent when the output is not a terminal", () => {
    const { progress, written, scheduled, clock } = setup(false);
    progress.update("compiling big.prose");
    clock.ms = 5000;
    progress.update("type-checking 1 module");
    progress.done();
    expect(scheduled()).toBe(false);
    expect(written).toEqual([]);
  });
});
