// A merge that left its conflict markers in a markdown file still renders: `<<<<<<< HEAD` as text,
// `=======` as the underline of a heading, `>>>>>>> main` as a quote. No stock rule reports them.
import { lintRule } from "unified-lint-rule";

const remarkLintConflictMarkers = lintRule("remark-lint:conflict-markers", (_, file) => {
  String(file)
    .split("\n")
    .forEach((line, index) => {
      if (/^(<{7}|={7}|>{7})( |$)/.test(line))
        file.message(`A merge conflict marker (${line.slice(0, 7)}): resolve the conflict and remove it`, {
          line: index + 1,
          column: 1,
        });
    });
});

export default remarkLintConflictMarkers;
