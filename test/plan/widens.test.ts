/**
 * Which type changes keep every stored value (no SVC3101, no `--allow-data-loss`): a probe's
 * `duration_seconds` from integer to float was refused as data loss, while the client diff
 * called it widened. A 32-bit integer fits a double exactly; a 64-bit one does not.
 */
import { describe, expect, it } from 'vitest';
import type { StoredColumn } from '../../src/outdir/storage-model.js';
import type { StoredTable } from '../../src/outdir/storage-model.js';
import { widens } from '../../src/plan/migrations/storage/conversions.js';
import { diffStorage } from '../../src/plan/migrations/storage/diff.js';

const column = (type: string, postgres: string, sqlite: string): StoredColumn =>
  ({ name: 'value', type, postgres, sqlite }) as unknown as StoredColumn;
const small = column('small_integer', 'smallint', 'integer');
const int = column('integer', 'integer', 'integer');
const big = column('big_integer', 'bigint', 'integer');
const float = column('float', 'double precision', 'real');
const decimal = (precision: number, scale: number) => column('decimal', `numeric(${precision}, ${scale})`, 'text');

describe('a change of a column type', () => {
  it('widens an integer into a double when the double holds every value exactly', () => {
    expect(widens(small, float)).toBe(true);
    expect(widens(int, float)).toBe(true);
    expect(widens(big, float)).toBe(false);
    expect(widens(float, int)).toBe(false);
  });

  it('widens an integer into a decimal with as many digits before the point', () => {
    expect(widens(int, column('decimal', 'numeric', 'text'))).toBe(true);
    expect(widens(int, decimal(12, 2))).toBe(true);
    expect(widens(int, decimal(11, 2))).toBe(false);
    expect(widens(small, decimal(7, 2))).toBe(true);
    expect(widens(big, decimal(20, 2))).toBe(false);
    expect(widens(big, decimal(21, 2))).toBe(true);
  });

  it('widens a date into a datetime (its midnight, converted on every engine), not the other way', () => {
    const date = column('date', 'date', 'text');
    const datetime = column('datetime', 'timestamptz', 'text');
    expect(widens(date, datetime)).toBe(true);
    expect(widens(datetime, date)).toBe(false);
  });

  it('widens an integer into text long enough for its digits and sign, not a float or an id', () => {
    const text = column('string', 'text', 'text');
    const varchar = (n: number) => column('string', `varchar(${n})`, 'text');
    expect(widens(int, text)).toBe(true);
    expect(widens(int, varchar(11))).toBe(true);
    expect(widens(int, varchar(10))).toBe(false);
    expect(widens(small, varchar(6))).toBe(true);
    expect(widens(big, varchar(20))).toBe(true);
    expect(widens(float, text)).toBe(false);
    expect(widens(text, int)).toBe(false);
  });

  it('keeps what it did before: integers by size, decimals by digits', () => {
    expect(widens(small, big)).toBe(true);
    expect(widens(big, int)).toBe(false);
    expect(widens(decimal(6, 2), decimal(8, 2))).toBe(true);
    expect(widens(decimal(6, 2), decimal(6, 3))).toBe(false);
  });
});

describe('a narrowing, as SVC3101 says it', () => {
  const storage = (value: StoredColumn) => ({
    tables: [
      {
        name: 'item',
        model: 'Item',
        columns: [value],
        renamedFrom: null,
        search: [],
        searchIndex: 0,
      } as unknown as StoredTable,
    ],
  });
  const finding = (a: StoredColumn, b: StoredColumn) => {
    const renames = { tables: new Map(), columns: new Map() } as unknown as Parameters<typeof diffStorage>[2];
    const found = diffStorage(storage(a) as never, storage(b) as never, renames).findings;
    expect(found.map((f) => f.kind)).toEqual(['dataLoss']);
    return { message: found[0]!.message, hint: found[0]!.hint };
  };

  it("names the schema's types, not PostgreSQL's", () => {
    expect(finding(decimal(10, 2), decimal(8, 2)).message).toContain(
      'Item.value narrows from decimal of 10 digits, 2 after the point to decimal of 8 digits, 2 after the point',
    );
    const varchar = (n: number) => column('string', `varchar(${n})`, 'text');
    expect(finding(varchar(120), varchar(5)).message).toContain(
      'narrows from string of at most 120 characters to string of at most 5 characters',
    );
  });

  it('says what precision holds every integer a decimal is to take', () => {
    expect(finding(int, decimal(10, 2)).hint).toBe(
      'a decimal of 10 digits, 2 after the point, holds integers of at most 8 digits, and integer values may have 10: give it a "precision" of 12 or more; or, where every stored value fits, run generate with --allow-data-loss',
    );
    expect(finding(decimal(10, 2), decimal(8, 2)).hint).toBe(
      'keep the type, or run generate with --allow-data-loss to convert',
    );
  });
});
