/**
 * Date-times in one form (issue 34): every form RFC 3339 allows, and what PostgreSQL prints, is
 * stored as `YYYY-MM-DDTHH:MM:SSZ` in UTC, so that filters select the same rows on every engine.
 */
import { describe, expect, it } from 'vitest';

const { parseDatetime } = (await import(new URL('../../runtime/src/lib/values.ts', import.meta.url).href)) as {
  parseDatetime: (text: string) => string | undefined;
};

describe('parseDatetime', () => {
  it.each([
    ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z'],
    ['2020-01-01t00:00:00z', '2020-01-01T00:00:00Z'],
    ['2020-01-01 00:00:00+00', '2020-01-01T00:00:00Z'],
    ['2020-01-01T05:30:00+05:30', '2020-01-01T00:00:00Z'],
    ['2020-01-01T05:30:00+0530', '2020-01-01T00:00:00Z'],
    ['2019-12-31T19:00:00-05', '2020-01-01T00:00:00Z'],
    ['2020-01-01T00:00:00.999999Z', '2020-01-01T00:00:00Z'],
    ['2020-01-01T00:00Z', '2020-01-01T00:00:00Z'],
    ['2020-01-01T00:00:00', '2020-01-01T00:00:00Z'],
    ['2020-01-01', '2020-01-01T00:00:00Z'],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00Z'],
    ['2016-12-31T18:59:60-05:00', '2017-01-01T00:00:00Z'],
  ])('reads %s as %s', (text, stored) => {
    expect(parseDatetime(text)).toBe(stored);
  });

  it.each([
    '2020-02-30T00:00:00Z',
    '2020-01-01T24:00:00Z',
    '2020-01-01T00:60:00Z',
    '2020-01-01T00:00:61Z',
    '2020-01-01X00:00:00Z',
    'now',
  ])('refuses %s', (text) => {
    expect(parseDatetime(text)).toBeUndefined();
  });
});
