import { editDistance } from "../1-parse/light.js";

/** Edits a suggestion may be away from a long name: past this it is another name, not a typo. */
const mostEdits = 8;

/** Names shorter than this are never taken for a misspelt binding (`{id}`, `{x}` are template slots). */
const shortestTypo = 3;

/**
 * The binding a `{placeholder}` misspells (DIALECT.md, "Interpolation"): one of 3 or more characters
 * one edit (a transposition, insertion, deletion or substitution) from a name in scope. Anything
 * further is a template slot for the model, not a typo.
 */
export function misspeltBinding(name: string, inScope: Iterable<string>): string | undefined {
  if (name.length < shortestTypo) return undefined;
  let found: string | undefined;
  for (const candidate of inScope) {
    if (candidate === name || editDistance(name, candidate, 1) > 1) continue;
    if (found === undefined || candidate < found) found = candidate;
  }
  return found;
}

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
