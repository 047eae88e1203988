/** The short diffs `--check` and `--dry-run` print (src/write/diff.ts): a few lines, none too long. */
import { describe, expect, it } from 'vitest';
import { shortDiff } from '../../src/write/diff.js';

describe('shortDiff', () => {
  it('shows the changed lines with two lines of context', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n');
    const after = ['a', 'b', 'c', 'D', 'e', 'f'].join('\n');
    expect(shortDiff(before, after)).toBe(['@@ -4,1 +4,1 @@', ' b', ' c', '-d', '+D', ' e', ' f'].join('\n'));
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
