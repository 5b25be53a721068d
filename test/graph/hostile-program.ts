/** A program whose every label tries to break out of Mermaid, DOT and SVG markup. */
export const HOSTILE_TEXTS = {
  prompt: `\\"]; click n1 href \\"javascript:alert(1)\\" %% <img src=x onerror=alert(1)> #quot; \`md\` \\\\N \\\\G \u0001 & </text></svg>`,
  judgment: `"] --> n9\\{\\{pwn\\}\\} <script>alert(1)</script> & #35;`,
  option: `a\\"<br>b`,
};

export const HOSTILE_PROGRAM = `agent writer:
  model: sonnet

let draft = session: writer
  prompt: "${HOSTILE_TEXTS.prompt}"

if **${HOSTILE_TEXTS.judgment}**:
  session "x\\"}}\\nflowchart LR; A-->B"
else:
  session "<b>bold</b> ]] || \\\\l"

loop until **done ]]>** (max: 3):
  session "iterate"

choice **pick "one" <one>**:
  option "${HOSTILE_TEXTS.option}":
    session "a"
  option "b":
    session "b"
`;
