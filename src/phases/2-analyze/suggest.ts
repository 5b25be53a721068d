import { editDistance } from "../1-parse/index.js";

/** Edits a suggestion may be away from a long name: past this it is another name, not a typo. */
const mostEdits = 8;

/** The closest known name to a misspelt one, for "did you mean ...?" (none when nothing is close). */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const allowed = Math.min(mostEdits, Math.max(1, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate, allowed);
    if (distance < bestDistance || (distance === bestDistance && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
