/** A program of about `lines` lines, built from the constructs real programs use. */
export function syntheticProgram(lines: number): string;
