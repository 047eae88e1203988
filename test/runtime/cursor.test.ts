/**
 * Keyset cursors (lib/http/cursor.ts): the conditions "after this object", read one after the
 * other, select exactly the objects that follow it in the page's order — for random rows with nulls
 * and ties, random sorts and both places an engine may put nulls — with SQL's truth values (a
 * comparison with a null is false); the leading comparison is one an index seeks to; and
 * a cursor is read back only under its own `_sort`, with values that parse by their fields' types.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type Rec = Record<string, unknown>;
type Ordering = readonly Readonly<Record<string, 'asc' | 'desc'>>[];
interface Cursor {
  readonly start: number;
  readonly values: readonly unknown[];
}
interface FieldLike {
  readonly name: string;
  readonly type: string;
}
interface ModelLike {
  readonly name: string;
  readonly primaryKey: string;
  field(name: string): FieldLike | undefined;
  relation(name: string): undefined;
}

const cursors = (await import(new URL('../../runtime/src/lib/http/cursor.ts', import.meta.url).href)) as {
  keyOrder(model: ModelLike, sort: Ordering): [string, 'asc' | 'desc'][];
  encodeCursor(
    model: ModelLike,
    sort: Ordering,
    last: Rec,
    start: number,
    models: ReadonlyMap<string, unknown>,
  ): string;
  decodeCursor(
    model: ModelLike,
    sort: Ordering,
    text: string,
    parse: (field: FieldLike, text: string) => unknown,
  ): Cursor | string;
  afterCursor(model: ModelLike, sort: Ordering, cursor: Cursor, nullsLast: boolean): Rec[];
};

const FIELDS = ['a', 'b'];
const model: ModelLike = {
  name: 'Row',
  primaryKey: 'id',
  field: (name) => (['id', ...FIELDS].includes(name) ? { name, type: 'integer' } : undefined),
  relation: () => undefined,
};
const parseInteger = (_field: FieldLike, text: string) => (/^-?\d+$/.test(text) ? Number(text) : undefined);

/** A condition as SQL evaluates it, true or not (unknown counts as not). */
function holds(where: Rec, row: Rec): boolean {
  return Object.entries(where).every(([key, condition]) => {
    if (key === 'AND') return (condition as Rec[]).every((c) => holds(c, row));
    if (key === 'OR') return (condition as Rec[]).some((c) => holds(c, row));
    const value = row[key];
    if (condition === null) return value === null;
    if (typeof condition !== 'object') return value !== null && value === condition;
    const filter = condition as { gt?: number; gte?: number; lt?: number; lte?: number; not?: null; in?: unknown[] };
    if ('not' in filter) return value !== null;
    if (filter.in) return filter.in.includes(value);
    if (value === null) return false;
    const [operator, bound] = Object.entries(filter)[0] as [string, number];
    const n = value as number;
    return { gt: n > bound, gte: n >= bound, lt: n < bound, lte: n <= bound }[operator]!;
  });
}

/** The engine's order: nulls after every value in ascending order (nullsLast) or before. */
function sorted(rows: readonly Rec[], order: [string, 'asc' | 'desc'][], nullsLast: boolean): Rec[] {
  const rank = (v: unknown) => (v === null ? (nullsLast ? Infinity : -Infinity) : (v as number));
  return [...rows].sort((x, y) => {
    for (const [name, direction] of order) {
      const d = rank(x[name]) - rank(y[name]);
      if (d !== 0 && !Number.isNaN(d)) return direction === 'asc' ? d : -d;
    }
    return 0;
  });
}

const rowsOf = fc
  .array(fc.record({ a: fc.constantFrom(1, 2, 3, null), b: fc.constantFrom(-1, 0, null) }), {
    minLength: 1,
    maxLength: 12,
  })
  .map((rows) => rows.map((row, i) => ({ id: i + 1, ...row })));
const sortOf = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'id'), { maxLength: 3 })
  .chain((names) =>
    fc.tuple(...names.map((name) => fc.constantFrom('asc', 'desc').map((d) => ({ [name]: d }) as const))),
  );

describe('keyset cursors', () => {
  it('select exactly the rows after the cursor row, in every order, wherever the engine puts nulls', () => {
    fc.assert(
      fc.property(rowsOf, sortOf, fc.boolean(), fc.nat(), (rows, sort, nullsLast, pick) => {
        const order = cursors.keyOrder(model, sort);
        const ordered = sorted(rows, order, nullsLast);
        const at = pick % ordered.length;
        const text = cursors.encodeCursor(model, sort, ordered[at]!, at + 1, new Map());
        const cursor = cursors.decodeCursor(model, sort, text, parseInteger);
        if (typeof cursor === 'string') throw new Error(cursor);
        expect(cursor.start).toBe(at + 1);
        // Each condition read in the page's order, one after the other, as the page reads them.
        const segments = cursors.afterCursor(model, sort, cursor, nullsLast);
        const read = segments.flatMap((where) => ordered.filter((row) => holds(where, row)));
        expect(read.map((r) => r['id'])).toEqual(ordered.slice(at + 1).map((r) => r['id']));
      }),
      { numRuns: 2000 },
    );
  });

  it('are read back only under their own _sort, with values of their fields’ types and a key', () => {
    const sort: Ordering = [{ a: 'desc' }];
    const good = cursors.encodeCursor(model, sort, { id: 4, a: null }, 3, new Map());
    expect(cursors.decodeCursor(model, sort, good, parseInteger)).toEqual({ start: 3, values: [null, 4] });
    expect(cursors.decodeCursor(model, [{ a: 'asc' }], good, parseInteger)).toMatch(/made for _sort=-a/);
    const forged = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const text of [
      forged(['-a', 3, 'x', 4]), // not a number
      forged(['-a', 3, 1, null]), // no key
      forged(['-a', -1, 1, 4]), // a negative start
      forged(['-a', 3, 1]), // a value short
      forged(['-a', 3, { gt: 1 }, 4]), // an operator, not a value
      forged({ sort: '-a' } as unknown as unknown[]),
      'not base64 at all!',
      'x'.repeat(5000),
    ])
      expect(cursors.decodeCursor(model, sort, text, parseInteger)).toBe('is not a cursor this service gave');
  });

  it('compare the key alone, without "or null": the key is never null, and PostgreSQL seeks its index only so', () => {
    for (const nullsLast of [true, false]) {
      // One condition, not an OR of one: the page of a plain comparison is compiled once.
      expect(cursors.afterCursor(model, [], { start: 20, values: [7] }, nullsLast)).toEqual([{ id: { gt: 7 } }]);
      expect(cursors.afterCursor(model, [{ id: 'desc' }], { start: 20, values: [7] }, nullsLast)).toEqual([
        { id: { lt: 7 } },
      ]);
    }
  });

  it('lead with a range on the first sort field, and read its nulls after every value as a second condition', () => {
    // `a >= 1 and (a > 1 or id > 7)`: an index on a seeks to 1; no "or a is null" beside it.
    const after = { start: 20, values: [1, 7] };
    expect(cursors.afterCursor(model, [{ a: 'asc' }], after, true)).toEqual([
      { AND: [{ a: { gte: 1 } }, { OR: [{ a: { gt: 1 } }, { id: { gt: 7 } }] }] },
      { a: null },
    ]);
    expect(cursors.afterCursor(model, [{ a: 'desc' }], after, true)).toEqual([
      { AND: [{ a: { lte: 1 } }, { OR: [{ a: { lt: 1 } }, { id: { gt: 7 } }] }] },
    ]);
    // Among the nulls, where they come first: the rest of the nulls, then every value.
    expect(cursors.afterCursor(model, [{ a: 'asc' }], { start: 20, values: [null, 7] }, false)).toEqual([
      { AND: [{ a: null }, { id: { gt: 7 } }] },
      { a: { not: null } },
    ]);
  });
});
