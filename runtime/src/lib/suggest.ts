/**
 * "Did you mean …?" — the closest candidate by edit distance, when it is close enough to be a
 * plausible typo (at most a third of the name's length, case differences counting as half).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const score = distance(name, candidate);
    if (score < bestScore || (score === bestScore && best !== undefined && candidate < best)) {
      best = candidate;
      bestScore = score;
    }
  }
  const allowed = Math.max(1, Math.floor(Math.max(name.length, 3) / 3));
  return best !== undefined && bestScore <= allowed ? best : undefined;
}

export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const match = closest(name, candidates);
  return match === undefined ? undefined : `did you mean \`${match}\`?`;
}

/** Optimal string alignment distance; a change of letter case costs 0.5. */
export function distance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, () => Array.from<number>({ length: cols }).fill(0));
  for (let i = 0; i < rows; i++) d[i]![0] = i;
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const ca = a[i - 1]!;
      const cb = b[j - 1]!;
      const cost = ca === cb ? 0 : ca.toLowerCase() === cb.toLowerCase() ? 0.5 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && ca === b[j - 2] && a[i - 2] === cb) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
