/**
 * A short unified diff of two texts, for `--check` and `--dry-run` output: hunks of the changed
 * lines with two lines of context, cut after `maxLines`, each line cut after `maxWidth` characters
 * (a CI log is read by people: a minified line would fill it).
 */
export function shortDiff(before: string, after: string, maxLines = 40, maxWidth = 200): string {
  const lines = hunks(lineEdits(before.split('\n'), after.split('\n'))).map((line) => clipped(line, maxWidth));
  return lines.length > maxLines
    ? [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`].join('\n')
    : lines.join('\n');
}

/** One line of the diff: kept (` `), removed (`-`) or added (`+`). */
type Edit = readonly [op: ' ' | '-' | '+', line: string];

/** Lines of context around each change. */
const CONTEXT = 2;

/**
 * Beyond this many differing lines, the changed middle is shown as removed, then added: finding
 * the fewest edits costs time and memory that grow with their square.
 */
const MAX_EDITS = 2_000;

function clipped(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, width)}… (${line.length - width} more characters)`;
}

/** `a` into `b`, line by line: the common head and tail, and the fewest edits between them. */
function lineEdits(a: readonly string[], b: readonly string[]): Edit[] {
  // Most regenerations change a few lines of a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  const middle = fewestEdits(removed, added) ?? [
    ...removed.map((l): Edit => ['-', l]),
    ...added.map((l): Edit => ['+', l]),
  ];
  const kept = (lines: readonly string[]) => lines.map((l): Edit => [' ', l]);
  return [...kept(a.slice(0, head)), ...middle, ...kept(a.slice(a.length - tail))];
}

/**
 * Myers' shortest edit script (the O(ND) algorithm diff and git use), or undefined past
 * MAX_EDITS. `frontier[d]` keeps, for each diagonal k in -d-1…d+1, how far round d started on it;
 * the script is read back from the end. On a tie a removal comes before an addition, as in diff.
 */
function fewestEdits(a: readonly string[], b: readonly string[]): Edit[] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  const frontier: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS); d++) {
    frontier.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return readBack(a, b, frontier);
    }
  }
  return undefined;
}

function readBack(a: readonly string[], b: readonly string[], frontier: readonly Int32Array[]): Edit[] {
  const out: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = frontier.length - 1; d >= 0; d--) {
    const at = (k: number) => frontier[d]![k + d + 1]!;
    const k = x - y;
    const previous = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(previous);
    const py = px - previous;
    while (x > px && y > py) {
      out.push([' ', a[--x]!]);
      y--;
    }
    if (d > 0) out.push(x === px ? ['+', b[--y]!] : ['-', a[--x]!]);
  }
  return out.reverse();
}

/** The edits as unified-diff hunks, each with CONTEXT kept lines around its changes. */
function hunks(edits: readonly Edit[]): string[] {
  const changed = edits.flatMap(([op], i) => (op === ' ' ? [] : [i]));
  const count = (lines: readonly Edit[], side: '-' | '+') => lines.filter(([op]) => op === ' ' || op === side).length;
  const out: string[] = [];
  // The lines of each side before the next hunk, counted on from the end of the one before it.
  let [fromA, fromB, counted] = [0, 0, 0];
  let first = 0;
  while (first < changed.length) {
    // A hunk runs on while the kept lines between two changes would be context of both.
    let last = first;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= 2 * CONTEXT + 1) last++;
    const start = Math.max(0, changed[first]! - CONTEXT);
    const end = Math.min(edits.length, changed[last]! + CONTEXT + 1);
    const between = edits.slice(counted, start);
    [fromA, fromB] = [fromA + count(between, '-'), fromB + count(between, '+')];
    const span = edits.slice(start, end);
    const [lengthA, lengthB] = [count(span, '-'), count(span, '+')];
    out.push(`@@ -${lengthA ? fromA + 1 : fromA},${lengthA} +${lengthB ? fromB + 1 : fromB},${lengthB} @@`);
    out.push(...span.map(([op, line]) => `${op}${line}`));
    [fromA, fromB, counted] = [fromA + lengthA, fromB + lengthB, end];
    first = last + 1;
  }
  return out;
}
