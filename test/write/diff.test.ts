/** The short diffs `--check` and `--dry-run` print (src/write/diff.ts): a few lines, none too long. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortDiff } from '../../src/write/diff.js';

/** `before` with each hunk of `diff` applied: what a reader of the diff takes the new text to be. */
function applied(before: string, diff: string): string {
  const a = before.split('\n');
  const out: string[] = [];
  let next = 0;
  for (const line of diff.split('\n')) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    if (header) {
      const from = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      out.push(...a.slice(next, from));
      next = from;
    } else if (line.startsWith('+')) out.push(line.slice(1));
    else if (line.startsWith('-')) next++;
    else {
      expect(line.slice(1)).toBe(a[next]);
      out.push(a[next++]!);
    }
  }
  return [...out, ...a.slice(next)].join('\n');
}

describe('shortDiff', () => {
  it('shows the changed lines with two lines of context, in a unified-diff hunk', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n');
    const after = ['a', 'b', 'c', 'D', 'e', 'f'].join('\n');
    expect(shortDiff(before, after)).toBe(['@@ -2,5 +2,5 @@', ' b', ' c', '-d', '+D', ' e', ' f'].join('\n'));
  });

  it('shows changes far apart in a long file as hunks of their own, not as everything between them', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
    const after = [...before];
    after.splice(2000, 0, 'new at 2000');
    after.splice(10, 0, 'new at 10');
    const diff = shortDiff(before.join('\n'), after.join('\n'));
    expect(diff.split('\n')).toEqual([
      '@@ -9,4 +9,5 @@',
      ' line 8',
      ' line 9',
      '+new at 10',
      ' line 10',
      ' line 11',
      '@@ -1999,4 +2000,5 @@',
      ' line 1998',
      ' line 1999',
      '+new at 2000',
      ' line 2000',
      ' line 2001',
    ]);
  });

  it('prints hunks that turn the old text into the new one, with as few changed lines as a line diff has', () => {
    const line = fc.constantFrom('a', 'b', 'c', '{', '}', '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (a, b) => {
        const [before, after] = [a.join('\n'), b.join('\n')];
        const diff = shortDiff(before, after, Infinity);
        if (before === after) {
          expect(diff).toBe('');
          return;
        }
        expect(applied(before, diff)).toBe(after);
        // The fewest edits: as many kept lines as the longest common subsequence.
        const [x, y] = [before.split('\n'), after.split('\n')];
        const lcs = Array.from({ length: x.length + 1 }, () => Array.from({ length: y.length + 1 }, () => 0));
        for (let i = x.length - 1; i >= 0; i--)
          for (let j = y.length - 1; j >= 0; j--)
            lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
        const removed = diff.split('\n').filter((l) => l.startsWith('-')).length;
        expect(removed).toBe(x.length - lcs[0]![0]!);
      }),
      { numRuns: 2000 },
    );
  });

  it('cuts after maxLines and says how many lines it left out', () => {
    const after = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const lines = shortDiff('', after, 10).split('\n');
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe('… 92 more lines');
  });

  it('cuts a long line and says how many characters it left out', () => {
    const long = `{"openapi":"3.1.0",${'"x":1,'.repeat(5000)}}`;
    const lines = shortDiff('{}', long).split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(240);
    expect(lines).toContain(`+${long.slice(0, 199)}… (${long.length + 1 - 200} more characters)`);
  });
});
