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
