/**
 * Type changes whose stored values each engine converts, where SQLite and MongoDB would keep them
 * as they were: the temporal ones (below), and an integer become text (its decimal digits; SQLite's
 * text column converts them itself, MongoDB has a `convertToText` step).
 *
 * The changes of a field from one temporal type to another that every engine converts the stored
 * values of: a datetime become a date or a time of day (in UTC, the service's time zone), a date
 * become a datetime (its midnight). PostgreSQL's cast does it; SQLite would keep the text as it is
 * and MongoDB the value, and filters, which compare what is stored, would then miss them
 * (sql.ts `temporalConversion`, mongo.ts, the runtime's `convertTemporal` step).
 */
import type { StoredColumn } from '../../../outdir/storage-model.js';

export type TemporalChange = 'datetime>date' | 'datetime>time' | 'date>datetime';

const CONVERTED: ReadonlySet<string> = new Set<TemporalChange>(['datetime>date', 'datetime>time', 'date>datetime']);

export function temporalChange(before: StoredColumn, after: StoredColumn): TemporalChange | undefined {
  const change = `${before.type}>${after.type}`;
  return CONVERTED.has(change) ? (change as TemporalChange) : undefined;
}

const INTEGERS: ReadonlySet<string> = new Set(['smallint', 'integer', 'bigint']);
const TEXTS: ReadonlySet<string> = new Set(['string', 'text', 'unicode', 'unicode_text']);

/** An integer field become a text field (`founded` from 1900 to "1900"). */
export function integerToText(before: StoredColumn, after: StoredColumn): boolean {
  return INTEGERS.has(before.postgres) && TEXTS.has(after.type) && before.type !== 'id_field';
}

const NUMBERS = ['integer', 'smallint', 'bigint', 'double precision', 'numeric'];
const others = (type: string) => NUMBERS.filter((t) => t !== type);

/**
 * The column types PostgreSQL casts each type to, besides text (every type casts to text, and text to
 * every type, by its value): tried on PostgreSQL 15, `alter column … type <to> using <column>::<to>`
 * on an empty table; any other pair is "cannot cast type" whatever is stored.
 */
const CASTS: Readonly<Record<string, readonly string[]>> = {
  integer: [...others('integer'), 'boolean'],
  smallint: others('smallint'),
  bigint: others('bigint'),
  'double precision': others('double precision'),
  numeric: others('numeric'),
  boolean: ['integer'],
  timestamptz: ['date', 'time'],
  date: ['timestamptz'],
  time: [],
  jsonb: [...NUMBERS, 'boolean'],
  bytea: [],
};

/** `varchar(20)` as `varchar`, `numeric(10, 2)` as `numeric`. */
export function family(type: string): string {
  return type.replace(/\(.*\)$/, '');
}

/** The digits of a decimal column (`numeric(10, 2)`: 10, 2 after the point); undefined for any other type. */
export function decimalDigits(type: string): { readonly precision: number; readonly scale: number } | undefined {
  const found = /^numeric\((\d+), (\d+)\)$/.exec(type);
  return found ? { precision: Number(found[1]), scale: Number(found[2]) } : undefined;
}

/** The column types of numbers with a fraction: a decimal (of any digits) and a float. */
export const FRACTIONAL: ReadonlySet<string> = new Set(['numeric', 'real', 'double precision']);

/**
 * Whether the stored values of a column can be converted to the other's type at all. A time is no
 * datetime (which day?), a date no number: PostgreSQL refuses the cast on every database, an empty
 * one too, and SQLite and MongoDB would keep values the new type does not read. Such a change is
 * refused when generated (SVC3104), not found when the service starts.
 */
export function convertible(before: StoredColumn, after: StoredColumn): boolean {
  const [from, to] = [family(before.postgres), family(after.postgres)];
  if (from === to || ['text', 'varchar'].includes(from) || ['text', 'varchar'].includes(to)) return true;
  return CASTS[from]?.includes(to) ?? true;
}

/** The digits of the largest value of each integer column (32767, 2147483647, 9223372036854775807). */
export const INTEGER_DIGITS: Readonly<Record<string, number>> = { smallint: 5, integer: 10, bigint: 19 };

/** A type change that keeps every value: a larger integer, a longer or unbounded text, more digits. */
export function widens(a: StoredColumn, b: StoredColumn): boolean {
  if ((a.type === 'boolean') !== (b.type === 'boolean')) return false;
  // A date's midnight, converted on every engine.
  if (temporalChange(a, b) === 'date>datetime') return true;
  if (a.postgres === b.postgres) return a.sqlite === b.sqlite;
  const ints = ['smallint', 'integer', 'bigint'];
  if (ints.includes(a.postgres) && ints.includes(b.postgres))
    return ints.indexOf(b.postgres) >= ints.indexOf(a.postgres);
  // A double holds every integer up to 2^53 exactly: a 32-bit one, not every 64-bit one.
  if (b.postgres === 'double precision') return a.postgres === 'smallint' || a.postgres === 'integer';
  const text = (t: string) =>
    t === 'text' ? Infinity : /^varchar\((\d+)\)$/.exec(t) ? Number(/^varchar\((\d+)\)$/.exec(t)![1]) : undefined;
  const [from, to] = [text(a.postgres), text(b.postgres)];
  if (from !== undefined && to !== undefined) return to >= from;
  const numeric = (t: string) => /^numeric(?:\((\d+), (\d+)\))?$/.exec(t);
  const [x, y] = [numeric(a.postgres), numeric(b.postgres)];
  // An integer into a decimal: as many digits before the point as its largest value has.
  const intDigits = INTEGER_DIGITS[a.postgres];
  // An integer into text: its digits and sign, converted on every engine (`integerToText`).
  if (integerToText(a, b)) return to! >= intDigits! + 1;
  if (intDigits !== undefined && y) return !y[1] || Number(y[1]) - Number(y[2]) >= intDigits;
  if (x && y) {
    if (!y[1]) return true;
    if (!x[1]) return false;
    const [p1, s1, p2, s2] = [x[1], x[2], y[1], y[2]].map(Number) as [number, number, number, number];
    return s2 >= s1 && p2 - s2 >= p1 - s1;
  }
  return false;
}
