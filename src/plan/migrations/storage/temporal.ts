/**
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
