// A fenced code block that is never closed runs to the end of the file (or to the next bare fence), and
// everything after its opening line renders as code. CommonMark allows both, so no stock rule reports
// them: a block that reaches the end of the file unclosed, and a line inside a block that starts with
// its fence but goes on with text (``` The next sentence), which looks closed and is not.
import { lintRule } from "unified-lint-rule";
import { visit } from "unist-util-visit";

const remarkLintClosedFences = lintRule("remark-lint:closed-fences", (tree, file) => {
  const text = String(file);
  visit(tree, "code", (node) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    const source = text.slice(start, end);
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(source);
    if (!fence) return; // an indented code block has no fence to close
    const lines = source.split("\n");
    const marker = fence[1][0].repeat(fence[1].length);
    lines.slice(1).forEach((line, index) => {
      const trimmed = line.trimStart();
      if (trimmed.startsWith(marker) && !/^[`~]+$/.test(trimmed.trimEnd()) && index < lines.length - 2)
        file.message(
          `This line starts with ${marker} but goes on with text, so it does not close the fenced code block`,
          {
            line: node.position.start.line + index + 1,
            column: 1,
          },
        );
    });
    const last = lines[lines.length - 1].trim();
    const closed = lines.length > 1 && last.startsWith(marker) && /^[`~]+$/.test(last);
    if (!closed) file.message("Fenced code block is never closed: add a closing " + fence[1], node.position.start);
  });
});

export default remarkLintClosedFences;
