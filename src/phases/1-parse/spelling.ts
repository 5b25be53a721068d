/**
 * "Did you mean ...?": the closest of some candidates to a misspelt word. The edit distance is
 * computed only within a band of `limit` edits around the diagonal, so a word of a million
 * characters (one long line) costs a million steps per candidate, not a million squared.
 */

/** Table cells computed so far: tests and benchmarks read it to see the work grow linearly. */
export const spellingWork = { cells: 0 };

/** The candidate closest to a misspelled `word`, when it is close enough to be what was meant. */
export function closestWord(word: string, candidates: Iterable<string>): string | undefined {
  const allowed = Math.min(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate, allowed);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Levenshtein distance, with a swap of two neighbours counted as one edit (`sesison` → `session`);
 * any distance above `limit` is reported as `limit + 1`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  // Three rolling rows (the swap looks two rows back); cells outside the band stay `over`.
  let before = new Array<number>(b.length + 1).fill(over);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : over));
  let current = new Array<number>(b.length + 1).fill(over);
  for (let i = 1; i <= a.length; i++) {
    const low = Math.max(1, i - limit);
    // The cells left of the band are `over` (the arrays are reused: clear what this row reads).
    current[0] = i <= limit ? i : over;
    current[low - 1] = low === 1 ? current[0]! : over;
    let rowBest = current[0]!;
    for (let j = low; j <= Math.min(b.length, i + limit); j++) {
      spellingWork.cells++;
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let distance = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, before[j - 2]! + 1);
      current[j] = Math.min(distance, over);
      rowBest = Math.min(rowBest, current[j]!);
    }
    if (rowBest > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length]!, over);
}
