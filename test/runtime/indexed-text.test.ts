/**
 * A unique, indexed or key text longer than PostgreSQL's index takes, or a searched one longer than
 * its search column takes, is refused on every engine,
 * counted in UTF-8 bytes, and a short text costs no measuring.
 */
import { describe, expect, it } from 'vitest';

type Rec = Record<string, unknown>;
const { oversizedIndexedText } = (await import(
  new URL('../../runtime/src/lib/http/writes.ts', import.meta.url).href
)) as { oversizedIndexedText: (model: unknown, body: Rec) => { field: string; message: string }[] };

const fields: Record<string, Rec> = {
  email: { name: 'email', unique: true },
  slug: { name: 'slug', index: true },
  code: { name: 'code', primaryKey: true },
  notes: { name: 'notes' },
};
const model = { field: (name: string) => fields[name], searchFields: ['notes'] };

describe('an indexed text', () => {
  it('is refused past 2,000 bytes of UTF-8, in bytes, for unique, indexed and key fields only', () => {
    const long = 'x'.repeat(2001);
    expect(
      oversizedIndexedText(model, { email: long, slug: long, code: long, notes: long }).map((e) => e.field),
    ).toEqual(['email', 'slug', 'code']);
    expect(oversizedIndexedText(model, { email: 'x'.repeat(2000) })).toEqual([]);
    // 700 euro signs are 2,100 bytes in 700 characters.
    expect(oversizedIndexedText(model, { email: '\u20ac'.repeat(700) }).map((e) => e.field)).toEqual(['email']);
    expect(oversizedIndexedText(model, { email: '\u20ac'.repeat(666) })).toEqual([]);
  });

  it("and a searched text past 300,000 bytes, where PostgreSQL's search column would refuse it", () => {
    expect(oversizedIndexedText(model, { notes: 'x'.repeat(300_000) })).toEqual([]);
    expect(oversizedIndexedText(model, { notes: 'x'.repeat(300_001) })).toEqual([
      {
        field: 'notes',
        message:
          'is longer than a searched text may be: at most 300,000 bytes of UTF-8 (its field is in full-text search)',
      },
    ]);
  });
});
