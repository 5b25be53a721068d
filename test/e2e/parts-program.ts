/** A program long enough to be run in parts (over 150 statements), with a `return` in the middle. */
export const PARTS_PROGRAM = [
  ...Array.from({ length: 80 }, (_, index) => `let step${index} = "s${index}"`),
  'output first = session "First"',
  "if **stop early**:",
  "  return",
  ...Array.from({ length: 80 }, (_, index) => `let later${index} = "l${index}"`),
  'output second = session "Second"',
  "",
].join("\n");
