/**
 * Date-times in one form (issue 34): every form RFC 3339 allows, and what PostgreSQL prints, is
 * stored as `YYYY-MM-DDTHH:MM:SSZ` in UTC, so that filters select the same rows on every engine.
 */
import { describe, expect, it } from 'vitest';

const { parseDate, parseDatetime } = (await import(
  new URL('../../runtime/src/lib/values.ts', import.meta.url).href
)) as {
  parseDate: (text: string) => string | undefined;
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
    // The first and last seconds of four-digit years, in UTC (the years 1–99 are not 1901–1999).
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['0001-01-01T00:00:00-01:00', '0001-01-01T01:00:00Z'],
    ['0099-06-15', '0099-06-15T00:00:00Z'],
    ['9999-12-31T23:59:59+01:00', '9999-12-31T22:59:59Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z'],
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
    // Out of four-digit years once in UTC, and year 0.
    '9999-12-31T23:59:59-01:00',
    '0001-01-01T00:00:00+01:00',
    '0000-06-15T00:00:00Z',
  ])('refuses %s', (text) => {
    expect(parseDatetime(text)).toBeUndefined();
  });
});

describe('parseDate', () => {
  it('reads the years 1–9999, each as written, and no year 0 nor a day a month lacks', () => {
    expect(['0001-01-01', '0050-02-28', '2024-02-29', '9999-12-31'].map(parseDate)).toEqual([
      '0001-01-01',
      '0050-02-28',
      '2024-02-29',
      '9999-12-31',
    ]);
    expect(['0000-01-01', '2023-02-29', '0050-02-29', '2020-13-01'].map(parseDate)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
