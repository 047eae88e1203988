/**
 * API-CHANGES.md: each regeneration before a release adds its changes to the one "Unreleased"
 * entry on top (a probe's file had eight of them, one per run); a release title names that entry;
 * an entry the user wrote in is kept as it is.
 */
import { describe, expect, it } from 'vitest';
import { changelogWithEntry, hasUnreleased } from '../../src/apidiff/changelog.js';
import type { ApiChange } from '../../src/apidiff/change.js';

const change = (path: string, breaking: boolean): ApiChange => ({
  kind: breaking ? 'response-field-removed' : 'response-field-added',
  breaking,
  operations: ['GET /items/{id}'],
  schema: 'Item',
  path,
  message: breaking ? 'was removed' : 'is new',
});

const headings = (text: string) => text.split('\n').filter((l) => l.startsWith('## '));

describe('API-CHANGES.md', () => {
  it('keeps one Unreleased entry, with the newest changes first and none twice', () => {
    const first = changelogWithEntry(undefined, [change('a', false), change('b', true)]);
    const second = changelogWithEntry(first, [change('c', false), change('a', false)]);
    expect(headings(second)).toEqual(['## Unreleased']);
    const items = second.split('\n').filter((l) => l.startsWith('- '));
    expect(items.map((l) => /Item\.(\w)/.exec(l)?.[1])).toEqual(['b', 'c', 'a']);
    expect(second.indexOf('### Breaking')).toBeLessThan(second.indexOf('### Compatible'));
  });

  it('names what was Unreleased by a release title, and starts an Unreleased entry above a release', () => {
    const released = changelogWithEntry(
      changelogWithEntry(undefined, [change('a', false)]),
      [change('b', false)],
      '2.0',
    );
    // The release takes in the changes written since the last one (a new user's post-release change
    // had joined the pre-release ones under Unreleased, below the next release).
    expect(headings(released)).toEqual(['## 2.0']);
    expect(released).toContain('Item.a');
    const next = changelogWithEntry(released, [change('c', false)]);
    expect(headings(next)).toEqual(['## Unreleased', '## 2.0']);
    // A release run that changes nothing itself names them too.
    expect(headings(changelogWithEntry(next, [], '2.1'))).toEqual(['## 2.1', '## 2.0']);
    expect(hasUnreleased(next)).toBe(true);
    expect(hasUnreleased(released)).toBe(false);
  });

  it('leaves an entry the user wrote in as it is, and puts the new one above it', () => {
    const first = changelogWithEntry(undefined, [change('a', false)]);
    const noted = first.replace('### Compatible', 'Clients must upgrade by May.\n\n### Compatible');
    const next = changelogWithEntry(noted, [change('b', false)]);
    expect(headings(next)).toEqual(['## Unreleased', '## Unreleased']);
    expect(next).toContain('Clients must upgrade by May.');
  });
});
