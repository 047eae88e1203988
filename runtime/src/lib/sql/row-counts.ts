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
import type { ModelRegistry } from '../model.js';
import { identifier, stringLiteral } from './quoting.js';
import type { Compiled, SqlDatabase, SqlExecutor } from './types.js';
import { MigrationError, TABLE_LOCK_TIMEOUT, WAIT_SECONDS } from '../migrate.js';

/** PostgreSQL: the migrations' advisory lock (lib/migrate.ts): one instance sets the counts up at a time. */
const SETUP_LOCK = 7_316_001;
/** PostgreSQL: how long after a write its change is folded into the count (writes in between share the fold). */
const FOLD_DELAY_MS = 1_000;

export class RowCounts {
  readonly #reads: ReadonlyMap<string, Compiled>;
  #fold: NodeJS.Timeout | undefined;
  #folding: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    readonly db: SqlDatabase,
    reads: ReadonlyMap<string, Compiled>,
  ) {
    this.#reads = reads;
  }

  /** The statement that reads a table's number of rows as `n`; undefined when it is not counted. */
  countOf(table: string): Compiled | undefined {
    return this.#reads.get(table);
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
  const reads = new Map<string, Compiled>();
  if (tables.length === 0) return new RowCounts(db, reads);
  await db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') {
      // A table's count(*) may take longer than a request may (database.query_timeout).
      await tx.execute(`set local statement_timeout = 0`);
      await tx.execute(`set local lock_timeout = '${WAIT_SECONDS}s'`);
      await tx.all({ sql: 'select pg_advisory_xact_lock($1)', parameters: [SETUP_LOCK] });
      // A table another transaction holds for long (a request of an instance still running): a
      // clear failure after a while, rather than a start that waits for ever.
      await tx.execute(`set local lock_timeout = '${TABLE_LOCK_TIMEOUT}'`);
      await tx.execute(POSTGRES_SCHEMA);
      for (const table of tables) reads.set(table, await keepPostgres(tx, table).catch(lockedOut(table)));
      // Counts of tables that are no more (or were made again, with another oid).
      await tx.execute(
        "delete from svc_row_counts c where not exists (select 1 from pg_trigger t where t.tgrelid = c.relid and t.tgname = 'svc_count_added')",
      );
    } else {
      await tx.execute(SQLITE_SCHEMA);
      await dropStraySqliteTriggers(tx, tables);
      for (const table of tables) reads.set(table, await keepSqlite(tx, table));
    }
  });
  return new RowCounts(db, reads);
}

// --- SQLite ---------------------------------------------------------------------------------------

const SQLITE_SCHEMA = 'create table if not exists svc_row_counts ("table" text primary key, "n" integer not null)';

async function keepSqlite(tx: SqlExecutor, table: string): Promise<Compiled> {
  const triggers = sqliteTriggers(table);
  const found = await tx.all<{ name: string; sql: string }>({
    sql: `select name, sql from sqlite_master where type = 'trigger' and name in (?, ?)`,
    parameters: triggers.map((t) => t.name),
  });
  const counted = await tx.all({ sql: 'select 1 from svc_row_counts where "table" = ?', parameters: [table] });
  const kept = counted.length === 1 && triggers.every((t) => found.some((f) => f.name === t.name && f.sql === t.sql));
  if (!kept) {
    await tx.execute(
      [
        ...triggers.map((t) => `drop trigger if exists ${identifier(t.name)};`),
        ...triggers.map((t) => `${t.sql};`),
        `insert into svc_row_counts ("table", "n") values (${stringLiteral(table)}, (select count(*) from ${identifier(table)}))
           on conflict ("table") do update set "n" = excluded."n";`,
      ].join('\n'),
    );
  }
  return { sql: 'select "n" from svc_row_counts where "table" = ?', parameters: [table] };
}

/**
 * The triggers of this module that are not as written here for a table of the models: a renamed
 * table keeps its triggers, which would count its rows under its old name, a name that a new
 * table may have taken.
 */
async function dropStraySqliteTriggers(tx: SqlExecutor, tables: readonly string[]): Promise<void> {
  const wanted = new Set(tables.flatMap(sqliteTriggers).map((t) => `${t.name}\n${t.sql}`));
  const found = await tx.all<{ name: string; sql: string }>({
    sql: `select name, sql from sqlite_master where type = 'trigger' and name like 'svc\\_count\\_%' escape '\\'`,
    parameters: [],
  });
  const stray = found.filter((t) => !wanted.has(`${t.name}\n${t.sql}`));
  if (stray.length) await tx.execute(stray.map((t) => `drop trigger ${identifier(t.name)};`).join('\n'));
  await tx.run({
    sql: `delete from svc_row_counts where "table" not in (${tables.map(() => '?').join(', ')})`,
    parameters: tables,
  });
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

const POSTGRES_TRIGGERS = [
  'create trigger svc_count_added after insert on %s referencing new table as svc_added for each statement execute function svc_count_added()',
  'create trigger svc_count_removed after delete on %s referencing old table as svc_removed for each statement execute function svc_count_removed()',
  'create trigger svc_count_truncated after truncate on %s for each statement execute function svc_count_truncated()',
];

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

async function keepPostgres(tx: SqlExecutor, table: string): Promise<Compiled> {
  const [found] = await tx.all<{ relid: string; triggers: string; counted: string }>({
    sql: `select c.oid as relid,
        (select count(*) from pg_trigger t where t.tgrelid = c.oid
          and t.tgname in ('svc_count_added', 'svc_count_removed', 'svc_count_truncated')) as triggers,
        (select count(*) from svc_row_counts r where r.relid = c.oid) as counted
      from pg_class c where c.oid = to_regclass($1)`,
    parameters: [identifier(table)],
  });
  if (!found)
    throw new Error(`row counts: the database has no table ${table} (its migrations are applied before this)`);
  if (Number(found.triggers) !== POSTGRES_TRIGGERS.length || Number(found.counted) !== 1) {
    const name = identifier(table);
    // Writers of the table wait (until the commit) so that the count and the triggers start together.
    await tx.execute(
      [
        `lock table ${name} in share row exclusive mode;`,
        ...['svc_count_added', 'svc_count_removed', 'svc_count_truncated'].map(
          (t) => `drop trigger if exists ${t} on ${name};`,
        ),
        ...POSTGRES_TRIGGERS.map((t) => `${t.replace('%s', name)};`),
        `delete from svc_row_count_deltas where relid = ${found.relid};`,
        `insert into svc_row_counts (relid, n) values (${found.relid}, (select count(*) from ${name}))
           on conflict (relid) do update set n = excluded.n;`,
      ].join('\n'),
    );
  }
  return {
    sql: `select (select n from svc_row_counts where relid = $1) + coalesce((select sum(n) from svc_row_count_deltas where relid = $1), 0) as n`,
    parameters: [Number(found.relid)],
  };
}
