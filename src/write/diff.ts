/**
 * A short unified diff of two texts, for `--check` and `--dry-run` output: the changed lines with
 * two lines of context, cut after `maxLines`, each line cut after `maxWidth` characters (a CI log
 * is read by people: a minified line would fill it).
 */
export function shortDiff(before: string, after: string, maxLines = 40, maxWidth = 200): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // Trim the common head and tail: most regenerations change a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const context = 2;
  const lines = [
    `@@ -${head + 1},${removed.length} +${head + 1},${added.length} @@`,
    ...a.slice(Math.max(0, head - context), head).map((l) => ` ${l}`),
    ...middle(removed, added),
    ...a.slice(a.length - tail, a.length - tail + context).map((l) => ` ${l}`),
  ].map((line) => clipped(line, maxWidth));
  return lines.length > maxLines
    ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`].join('\n')
    : lines.join('\n');
}

function clipped(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, width)}… (${line.length - width} more characters)`;
}

/** The changed middle as a line diff (LCS) when small enough, else all removed then all added. */
function middle(removed: readonly string[], added: readonly string[]): string[] {
  if (removed.length * added.length > 250_000) return [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)];
  const n = removed.length;
  const m = added.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => Array.from<number>({ length: m + 1 }).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = removed[i] === added[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  // On a tie, the line that goes is printed before the line that comes, as diff does.
  while (i < n || j < m) {
    if (i < n && j < m && removed[i] === added[j]) {
      out.push(` ${removed[i]}`);
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`-${removed[i++]}`);
    else out.push(`+${added[j++]}`);
  }
  return out;
}
