// `npm run lint:md`: every markdown file of the repository renders as written (remark-lint's
// recommended rules, fences closed, no merge conflict markers) and every relative link and #anchor
// resolves (remark-validate-links).
import remarkGfm from "remark-gfm";
import remarkPresetLintRecommended from "remark-preset-lint-recommended";
import remarkValidateLinks from "remark-validate-links";
import remarkLintClosedFences from "./scripts/remark-lint-closed-fences.mjs";
import remarkLintConflictMarkers from "./scripts/remark-lint-conflict-markers.mjs";

export default {
  plugins: [
    remarkGfm,
    remarkPresetLintRecommended,
    remarkLintClosedFences,
    remarkLintConflictMarkers,
    [remarkValidateLinks, { repository: false }],
  ],
};
