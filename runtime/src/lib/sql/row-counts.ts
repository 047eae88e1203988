/**
 * The number of rows of each model's table, kept by the database as rows are written, so that a
 * page of the whole collection gets its exact `total` (and `_count` its answer) without counting
 * the table: `count(*)` reads every row, a millionth row costs a page as much as the rest.
 *
 * - SQLite: a row per table in `svc_row_counts`, moved by a trigger on each insert and delete.
 *   One transaction writes at a time, so the row is never contended.
 * - PostgreSQL: a row per table in `svc_row_counts` (by the table's oid: a rename keeps it) plus
 *   the changes since in `svc_row_count_deltas`, one row per statement that inserted or deleted
 *   (statement triggers with transition tables: a DELETE of a thousand rows writes one). Writers
 *   only append, so they never wait for each other on a counter row, and two transactions that
 *   write two tables in opposite orders cannot deadlock on it. The service folds the changes into
 *   the count a second after its writes (`written`); a read adds those not folded yet, in one
 *   statement, which sees either the changes or their fold, never both.
 * - MongoDB is not counted this way: its pages count the documents.
 *
 * At every start, before it serves, the service checks each table's triggers and count row, and
 * recounts a table whose triggers are missing or not as written here (the table is new, was
 * rebuilt or renamed by a migration, or the database was made by an earlier version): under a
 * lock that holds the table's writers for the length of one `count(*)`. A count is used only for
 * the tables checked at this start; the rest count their rows as before.
 */
import { sql, type RawBuilder } from 'kysely';
import type { ModelRegistry } from '../model.js';
import type { Dialect } from '../values.js';
import { sqlCompiler } from './compiler.js';
import { identifier, stringLiteral } from './quoting.js';
import type { Compiled, SqlDatabase, SqlExecutor } from './types.js';
import { inTurn, MigrationError, TABLE_LOCK_TIMEOUT } from '../migrate.js';

/** PostgreSQL: how long after a write its change is folded into the count (writes in between share the fold). */
const FOLD_DELAY_MS = 1_000;

export class RowCounts {
  /** Each counted table's count key: its name on SQLite, its oid on PostgreSQL. */
  readonly #keys: ReadonlyMap<string, string | number>;
  readonly #reads = new Map<string, Compiled>();
  #fold: NodeJS.Timeout | undefined;
  #folding: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    readonly db: SqlDatabase,
    keys: ReadonlyMap<string, string | number>,
  ) {
    this.#keys = keys;
  }

  /** The statement that reads a table's number of rows as `n`; undefined when it is not counted. */
  countOf(table: string): Compiled | undefined {
    const key = this.#keys.get(table);
    if (key === undefined) return undefined;
    let read = this.#reads.get(table);
    if (!read) {
      read = sql`select ${keptCount(this.db.dialect, key)} as n`.compile(sqlCompiler(this.db.dialect));
      this.#reads.set(table, read);
    }
    return read;
  }

  /** The key `keptCount` reads a table's number of rows by; undefined when it is not counted. */
  keyOf(table: string): string | number | undefined {
    return this.#keys.get(table);
  }

  /** After a write: PostgreSQL folds the changes into the counts soon, in the background. */
  written(): void {
    if (this.db.dialect !== 'postgres' || this.#closed || this.#fold) return;
    this.#fold = setTimeout(() => {
      this.#fold = undefined;
      this.#folding = this.fold().catch(() => {
        // Left for the next fold: the changes stay where reads add them, the count stays exact.
      });
    }, FOLD_DELAY_MS);
    this.#fold.unref();
  }

  /** PostgreSQL: the changes written so far become part of the counts (by any instance). */
  async fold(): Promise<void> {
    await this.db.execute(FOLD);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#fold);
    await this.#folding;
  }
}

/** Checks (and where needed recounts) every model's table; the counts the service may read. */
export async function keepRowCounts(db: SqlDatabase, models: ModelRegistry): Promise<RowCounts> {
  const tables = [...new Set([...models.values()].map((m) => m.table))];
  const keys = new Map<string, string | number>();
  if (tables.length === 0) return new RowCounts(db, keys);
  // One instance at a time, as migrations, and waiting as long as they do for another instance's
  // turn (SQLite: its write lock). A table's count(*) may take longer than a request may; on
  // PostgreSQL a table another transaction holds for long fails the start with a clear error
  // (TABLE_LOCK_TIMEOUT) rather than making it wait for ever.
  await inTurn(db, async (tx) => {
    if (tx.dialect === 'postgres') {
      await tx.execute(POSTGRES_SCHEMA);
      for (const table of tables) keys.set(table, await keepPostgres(tx, table).catch(lockedOut(table)));
      // Counts of tables that are no more (or were made again, with another oid).
      await tx.execute(
        `delete from svc_row_counts c where not exists (select 1 from pg_trigger t where t.tgrelid = c.relid and t.tgname = '${POSTGRES_TRIGGERS[0].name}')`,
      );
    } else {
      await tx.execute(SQLITE_SCHEMA);
      const kept = await keptSqlite(tx, tables);
      for (const table of tables) keys.set(table, await keepSqlite(tx, table, kept));
    }
  });
  return new RowCounts(db, keys);
}

/**
 * A table's number of rows as one expression, by its count key (`RowCounts.keyOf`): what `countOf`
 * reads alone, and what a page without conditions reads as a column of its own statement.
 * PostgreSQL adds the changes not folded yet; one statement sees either them or their fold.
 */
export function keptCount(dialect: Dialect, key: unknown): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`((select n from svc_row_counts where relid = ${key}) + coalesce((select sum(n) from svc_row_count_deltas where relid = ${key}), 0))`
    : sql`(select "n" from svc_row_counts where "table" = ${key})`;
}

// --- SQLite ---------------------------------------------------------------------------------------

const SQLITE_SCHEMA = 'create table if not exists svc_row_counts ("table" text primary key, "n" integer not null)';

/** What is in place: this module's triggers as written here (each as `name\nsql`), and the tables counted. */
interface KeptSqlite {
  readonly triggers: ReadonlySet<string>;
  readonly counted: ReadonlySet<string>;
}

async function keepSqlite(tx: SqlExecutor, table: string, kept: KeptSqlite): Promise<string> {
  const triggers = sqliteTriggers(table);
  if (!kept.counted.has(table) || !triggers.every((t) => kept.triggers.has(triggerKey(t)))) {
    await tx.execute(
      [
        ...triggers.map((t) => `drop trigger if exists ${identifier(t.name)};`),
        ...triggers.map((t) => `${t.sql};`),
        `insert into svc_row_counts ("table", "n") values (${stringLiteral(table)}, (select count(*) from ${identifier(table)}))
           on conflict ("table") do update set "n" = excluded."n";`,
      ].join('\n'),
    );
  }
  return table;
}

/**
 * Reads this module's triggers and counts once, and drops those not as written here for a table of
 * the models: a renamed table keeps its triggers, which would count its rows under its old name, a
 * name that a new table may have taken.
 */
async function keptSqlite(tx: SqlExecutor, tables: readonly string[]): Promise<KeptSqlite> {
  const wanted = new Set(tables.flatMap(sqliteTriggers).map(triggerKey));
  const found = await tx.all<{ name: string; sql: string }>({
    sql: `select name, sql from sqlite_master where type = 'trigger' and name like 'svc\\_count\\_%' escape '\\'`,
    parameters: [],
  });
  const stray = found.filter((t) => !wanted.has(triggerKey(t)));
  if (stray.length) await tx.execute(stray.map((t) => `drop trigger ${identifier(t.name)};`).join('\n'));
  await tx.run({
    sql: `delete from svc_row_counts where "table" not in (${tables.map(() => '?').join(', ')})`,
    parameters: tables,
  });
  const counted = await tx.all<{ table: string }>({ sql: 'select "table" from svc_row_counts', parameters: [] });
  return {
    triggers: new Set(found.filter((t) => wanted.has(triggerKey(t))).map(triggerKey)),
    counted: new Set(counted.map((c) => c.table)),
  };
}

function triggerKey(trigger: { name: string; sql: string }): string {
  return `${trigger.name}\n${trigger.sql}`;
}

/** The two triggers, as sqlite_master keeps their text: a table renamed since has them otherwise. */
function sqliteTriggers(table: string): { name: string; sql: string }[] {
  const row = (change: string) =>
    `update svc_row_counts set "n" = "n" ${change} where "table" = ${stringLiteral(table)}`;
  return [
    { name: `svc_count_${table}_insert`, event: 'insert', change: '+ 1' },
    { name: `svc_count_${table}_delete`, event: 'delete', change: '- 1' },
  ].map(({ name, event, change }) => ({
    name,
    sql: `CREATE TRIGGER ${identifier(name)} after ${event} on ${identifier(table)} begin ${row(change)}; end`,
  }));
}

// --- PostgreSQL -----------------------------------------------------------------------------------

const POSTGRES_SCHEMA = `
create table if not exists svc_row_counts (relid oid primary key, n bigint not null);
create table if not exists svc_row_count_deltas (relid oid not null, n bigint not null);
create index if not exists svc_row_count_deltas_relid on svc_row_count_deltas (relid);
create or replace function svc_count_added() returns trigger language plpgsql as $$
begin
  insert into svc_row_count_deltas (relid, n) select tg_relid, count(*) from svc_added having count(*) > 0;
  return null;
end $$;
create or replace function svc_count_removed() returns trigger language plpgsql as $$
begin
  insert into svc_row_count_deltas (relid, n) select tg_relid, -count(*) from svc_removed having count(*) > 0;
  return null;
end $$;
create or replace function svc_count_truncated() returns trigger language plpgsql as $$
begin
  delete from svc_row_count_deltas where relid = tg_relid;
  update svc_row_counts set n = 0 where relid = tg_relid;
  return null;
end $$;`;

/** The triggers on each table (`%s`: the table), by name. */
const POSTGRES_TRIGGERS = [
  {
    name: 'svc_count_added',
    on: 'after insert on %s referencing new table as svc_added for each statement execute function svc_count_added()',
  },
  {
    name: 'svc_count_removed',
    on: 'after delete on %s referencing old table as svc_removed for each statement execute function svc_count_removed()',
  },
  {
    name: 'svc_count_truncated',
    on: 'after truncate on %s for each statement execute function svc_count_truncated()',
  },
] as const;

/** Folds every change into its count: the deleted changes are exactly those added, in one statement. */
const FOLD = `with folded as (delete from svc_row_count_deltas returning relid, n),
  sums as (select relid, sum(n) as n from folded group by relid)
  update svc_row_counts c set n = c.n + sums.n from sums where c.relid = sums.relid`;

function lockedOut(table: string): (error: unknown) => never {
  return (error) => {
    if ((error as { code?: string }).code !== '55P03') throw error;
    throw new MigrationError(
      `counting the rows of table ${table} waited more than ${TABLE_LOCK_TIMEOUT} for it: another transaction holds it (a running instance or another client); start again when that transaction has ended`,
      { cause: error },
    );
  };
}

async function keepPostgres(tx: SqlExecutor, table: string): Promise<number> {
  const [found] = await tx.all<{ relid: string; triggers: string; counted: string }>({
    sql: `select c.oid as relid,
        (select count(*) from pg_trigger t where t.tgrelid = c.oid and t.tgname = any($2)) as triggers,
        (select count(*) from svc_row_counts r where r.relid = c.oid) as counted
      from pg_class c where c.oid = to_regclass($1)`,
    parameters: [identifier(table), POSTGRES_TRIGGERS.map((t) => t.name)],
  });
  if (!found)
    throw new Error(`row counts: the database has no table ${table} (its migrations are applied before this)`);
  if (Number(found.triggers) !== POSTGRES_TRIGGERS.length || Number(found.counted) !== 1) {
    const name = identifier(table);
    // Writers of the table wait (until the commit) so that the count and the triggers start together.
    await tx.execute(
      [
        `lock table ${name} in share row exclusive mode;`,
        ...POSTGRES_TRIGGERS.map((t) => `drop trigger if exists ${t.name} on ${name};`),
        ...POSTGRES_TRIGGERS.map((t) => `create trigger ${t.name} ${t.on.replace('%s', name)};`),
        `delete from svc_row_count_deltas where relid = ${found.relid};`,
        `insert into svc_row_counts (relid, n) values (${found.relid}, (select count(*) from ${name}))
           on conflict (relid) do update set n = excluded.n;`,
      ].join('\n'),
    );
  }
  return Number(found.relid);
}
