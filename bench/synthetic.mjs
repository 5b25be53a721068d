// Synthetic programs of a given size, built from the constructs real programs use.
const unit = (i) => `# Section ${i}
agent worker-${i}:
  model: sonnet
  prompt: """
You are worker ${i}. Read the notes and answer in markdown.
# Notes may hold headings and {json: "examples"}
"""

let topic-${i} = session "Research topic ${i}"
  context: { seed }

parallel (on-fail: "continue"):
  a${i} = session: worker-${i}
    prompt: "Analyse {topic-${i}} from angle A"
  b${i} = session "Analyse {topic-${i}} from angle B"

loop until **the draft for ${i} is good** (max: 3):
  draft = session "Improve the draft"
    context: [a${i}, b${i}, draft]

if **draft ${i} needs review** or retries > 2:
  let reviewed-${i} = items | map:
    session "Review {item}"
else:
  draft = draft + "\\n(unreviewed)"
`;

const unitLines = unit(0).split("\n").length - 1;

/** A program of about `lines` lines. */
export function syntheticProgram(lines) {
  const parts = ['let seed = session "Start"', 'let draft = ""', "let retries = 0", 'let items = ["a", "b"]', ""];
  for (let i = 0; parts.length < lines; i++) parts.push(...unit(i).split("\n").slice(0, -1));
  return parts.slice(0, Math.max(lines, unitLines)).join("\n") + "\n";
}
