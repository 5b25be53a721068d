/**
 * A program whose every section leaves something unread, as real programs do: an agent no session
 * uses, a binding nothing reads, a loop and a `map` whose item the body does not read, a `pmap`
 * likewise. A judgment sees the bindings declared before it: the program's one comes first.
 * `sections` of them; over 150 top-level statements (about 14 sections) the program's body runs in
 * parts (`parts.ts`).
 */
export function unreadProgram(sections: number): string {
  const judged = 'let seen = session "Seen"\nif **seen is long enough**:\n  session "Long"\n';
  return [judged, ...Array.from({ length: sections }, (_, index) => section(index))].join("\n");
}

function section(n: number): string {
  return `agent unused-${n}:
  model: sonnet
  prompt: "Never asked"

agent used-${n}:
  model: sonnet

let unread-${n} = session: used-${n}
  prompt: "Draft ${n}"
let kept-${n} = session "Notes ${n}"
const report-${n} = session "Report on {kept-${n}}"
if kept-${n} == "x":
  let both-${n} = session "One"
else:
  let both-${n} = session "Two"
session "Use {both-${n}}"
for item in ["a", "b"]:
  session "Once per item"
let answers-${n} = ["a", "b"] | map:
  session "Answer"
let quick-${n} = ["a", "b"] | pmap:
  session "Quick"
`;
}
