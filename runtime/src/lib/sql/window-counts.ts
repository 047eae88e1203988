/**
 * Counts in time windows (`EngineRepository.countInWindows`) on SQL: one `insert … on conflict do
 * update … returning` for all the counters, which counts on a row whether it exists or not, with
 * the same statement either way. The rows are written in key order: two statements that share
 * rows lock them in one order (PostgreSQL), and so never wait for each other in a cycle.
 */
import { sql, type Kysely } from 'kysely';
import type { WindowCounter, WindowFields } from '../database.js';
import { formatTimestamp } from '../errors.js';
import type { FieldSpec } from '../model.js';
import { toDb, type Dialect } from '../values.js';
import type { SqlExecutor } from './executor.js';

type Row = Record<string, unknown>;

/** What of a SQL repository (repository.ts) counting needs. */
interface CountingRepository {
  readonly model: { readonly table: string; readonly primaryKey: string; field(name: string): FieldSpec | undefined };
  readonly dialect: Dialect;
  readonly ctx: { readonly compiler: Kysely<Record<string, Row>>; readonly executor: SqlExecutor };
  columnOf(name: string): string;
  run<R>(write: () => Promise<R>): Promise<R>;
  written(): void;
  record(row: Row): Row;
}

export async function countInWindows(
  repository: CountingRepository,
  fields: WindowFields,
  counters: readonly WindowCounter[],
  now: Date,
): Promise<{ count: number; ends: Date }[]> {
  if (counters.length === 0) return [];
  const { model } = repository;
  const table = model.table;
  const key = model.primaryKey;
  const count = repository.columnOf(fields.count);
  const ends = repository.columnOf(fields.ends);
  const stored = (date: Date) => storedEnd(repository, fields, date);
  const rows = [...new Map(counters.map((c) => [c.key, c])).values()]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((c) => ({ [key]: c.key, [count]: 1, [ends]: stored(c.ends) }));
  const over = sql<boolean>`${sql.ref(`${table}.${ends}`)} <= ${stored(now)}`;
  const statement = repository.ctx.compiler
    .insertInto(table)
    .values(rows)
    .onConflict((conflict) =>
      conflict.column(key).doUpdateSet({
        [count]: sql`case when ${over} then 1 else ${sql.ref(`${table}.${count}`)} + 1 end`,
        [ends]: sql`case when ${over} then ${sql.ref(`excluded.${ends}`)} else ${sql.ref(`${table}.${ends}`)} end`,
      }),
    )
    .returning([key, count, ends])
    .compile();
  const written = await repository.run(() => repository.ctx.executor.all<Row>(statement));
  repository.written();
  const after = new Map(written.map((row) => [String(row[key]), repository.record(row)]));
  return counters.map((c) => {
    const record = after.get(c.key)!;
    return { count: Number(record[fields.count]), ends: new Date(String(record[fields.ends])) };
  });
}

/** `EngineRepository.forgetWindows` on SQL: `delete … where key in (select key … where ends < ? limit ?)`. */
export async function forgetWindows(
  repository: CountingRepository,
  fields: WindowFields,
  before: Date,
  limit: number,
): Promise<number> {
  const { model } = repository;
  const key = model.primaryKey;
  const ends = repository.columnOf(fields.ends);
  const over = storedEnd(repository, fields, before);
  const compiler = repository.ctx.compiler;
  // The end checked again on the row deleted: one a guess started over since the subquery read it
  // (PostgreSQL rechecks the row it waited for by this condition, not by the subquery) is kept.
  const statement = compiler
    .deleteFrom(model.table)
    .where(key, 'in', compiler.selectFrom(model.table).select(key).where(ends, '<', over).limit(limit))
    .where(ends, '<', over)
    .returning(key)
    .compile();
  const deleted = await repository.run(() => repository.ctx.executor.all<Row>(statement));
  repository.written();
  return deleted.length;
}

/** A window's end as its column stores it (in one form: text on SQLite compares in time order). */
function storedEnd(repository: CountingRepository, fields: WindowFields, date: Date): unknown {
  return toDb(formatTimestamp(date), repository.model.field(fields.ends)!, repository.dialect);
}
