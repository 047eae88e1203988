/**
 * Applies the migrations of `src/db/migrations.ts` that the database has not seen, in order, each
 * in a transaction of its own, and records each in `svc_migrations` (its name and the checksum of
 * its SQL). A service two versions behind applies the next migration, then the one after: each
 * is all there or not at all. Which ones ran is known by name, never by "the last one".
 *
 * The service refuses to start on a database that does not match its code: a migration applied
 * there has changed since, or the database had one applied that the code does not know (a newer
 * version of the service migrated it).
 *
 * Several instances may start at once. PostgreSQL: each migration's transaction first takes an
 * advisory transaction lock, then reads what was applied, so an instance that waited for another
 * finds that one's work done instead of doing it again. SQLite: BEGIN IMMEDIATE lets one writer in
 * at a time; a process that waits longer than its busy timeout tries again. Either way an
 * instance gives up after WAIT_SECONDS.
 */
import { outboxSchema } from './outbox/schema.js';
import { createHash } from 'node:crypto';
import { ConfigError } from './config.js';
import type { MongoStep } from './mongo/steps.js';
import type { SqlDatabase, SqlExecutor } from './sql/executor.js';
import type { Dialect } from './values.js';

export interface Migration {
  /** `0002_add_story_subtitle` */
  readonly name: string;
  /** What it changes, and what it drops, as svcgen wrote it: for people (`npm run migrate -- --dry-run`), not checksummed. */
  readonly summary?: readonly string[];
  /** One SQL script (several statements); '' when there is nothing to do. */
  readonly sqlite: string;
  readonly postgres: string;
  /** MongoDB steps, idempotent, applied in order (lib/mongo/migrate.ts); absent or [] when there is nothing to do. */
  readonly mongodb?: readonly MongoStep[];
}

export type { MongoStep } from './mongo/steps.js';

/** The database does not match the code, or a migration could not be applied: the service does not start. */
export class MigrationError extends ConfigError {}

/** A migration `migrate` would apply, as `npm run migrate -- --dry-run` shows it. */
export interface PlannedMigration {
  readonly name: string;
  readonly script: string;
}

/** How long an instance waits for another one's migrations before it gives up. */
export const WAIT_SECONDS = 300;

/** Any constant: the PostgreSQL advisory lock that lets one instance migrate at a time. */
const MIGRATION_LOCK = 7_316_001;

/**
 * How long a migration waits for a table that another transaction holds (a request of an
 * instance still running the previous version) before it fails, rather than queueing every
 * request behind it.
 */
export const TABLE_LOCK_TIMEOUT = '10s';

export function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function scriptOf(migration: Migration, dialect: Dialect): string {
  return dialect === 'sqlite' ? migration.sqlite : migration.postgres;
}

/**
 * The migrations the database has not seen (`applied`: name → checksum), in the code's order.
 * Throws when the database does not match the code.
 */
export function pendingOf<M extends Migration>(
  applied: ReadonlyMap<string, string>,
  migrations: readonly M[],
  checksumOf: (migration: M) => string,
): M[] {
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...applied.keys()].find((name) => !known.has(name));
  if (unknown !== undefined) {
    throw new MigrationError(
      `the database was migrated by a newer version of this service (migration ${unknown} is unknown here); deploy that version or restore a backup`,
    );
  }
  for (const migration of migrations) {
    const previous = applied.get(migration.name);
    if (previous !== undefined && previous !== checksumOf(migration)) {
      throw new MigrationError(
        `migration ${migration.name} was applied to this database but has changed since: restore src/db/migrations/${migration.name}.ts as it was applied (from version control), and make the change in a new migration (a database made only for development may be recreated instead)`,
      );
    }
  }
  return migrations.filter((m) => !applied.has(m.name));
}

/** Applies the pending migrations; resolves with their names, in the order they were applied. */
export async function migrate(db: SqlDatabase, migrations: readonly Migration[]): Promise<string[]> {
  // Rebuilding a table is only safe with SQLite's foreign keys off (see withoutForeignKeys).
  return db.withoutForeignKeys(async (session) => {
    const applied: string[] = [];
    for (;;) {
      const name = await inTurn(session, async (tx) => {
        await tx.execute(
          'create table if not exists svc_migrations (name varchar(200) primary key, checksum varchar(64) not null, applied_at varchar(32) not null)',
        );
        // The outbox's tables are the service's own, not the API's: made here, whatever the migrations.
        await tx.execute(outboxSchema(tx.dialect));
        const next = pendingOf(await appliedIn(tx), migrations, (m) => checksum(scriptOf(m, tx.dialect)))[0];
        if (next) await apply(tx, next);
        return next?.name;
      }).catch((error: unknown) => {
        // The ones this start applied before it stay applied: said by name, or a failed start
        // looks as if it had changed nothing.
        if (applied.length && error instanceof ConfigError)
          throw new MigrationError(`${error.message}; applied at this start, and kept: ${applied.join(', ')}`, {
            cause: error,
          });
        throw error;
      });
      if (name === undefined) return applied;
      applied.push(name);
    }
  });
}

/** What `migrate` would apply now, without applying anything (or creating svc_migrations). */
export async function planMigrations(db: SqlDatabase, migrations: readonly Migration[]): Promise<PlannedMigration[]> {
  const applied = (await hasMigrationsTable(db)) ? await appliedIn(db) : new Map<string, string>();
  return pendingOf(applied, migrations, (m) => checksum(scriptOf(m, db.dialect))).map((m) => ({
    name: m.name,
    script: scriptOf(m, db.dialect),
  }));
}

/** One migration, in the transaction `tx`: its script, a check of the links it left, its record. */
async function apply(tx: SqlExecutor, migration: Migration): Promise<void> {
  const script = scriptOf(migration, tx.dialect);
  if (script.trim() !== '') {
    try {
      await tx.execute(script);
    } catch (error) {
      throw scriptError(migration, error, namesBefore(script));
    }
    if (tx.dialect === 'sqlite') await checkForeignKeys(tx, migration);
  }
  const record = `insert into svc_migrations (name, checksum, applied_at) values (${tx.dialect === 'sqlite' ? '?, ?, ?' : '$1, $2, $3'})`;
  await tx.run({ sql: record, parameters: [migration.name, checksum(script), new Date().toISOString()] });
}

/** With foreign keys off, SQLite let the script leave links to nothing: they are found before COMMIT. */
async function checkForeignKeys(tx: SqlExecutor, migration: Migration): Promise<void> {
  const broken = await tx.all<{ table: string; parent: string }>({ sql: 'pragma foreign_key_check', parameters: [] });
  const first = broken[0];
  if (!first) return;
  throw new MigrationError(
    `migration ${migration.name} would leave ${broken.length} row(s) of table ${first.table} linking to no row of ${first.parent}; nothing of it was applied`,
  );
}

function scriptError(migration: Migration, error: unknown, before: NamesBefore): Error {
  const e = error as { code?: string; message?: string; detail?: string; table?: string };
  if (e.code === '55P03') {
    return new MigrationError(
      `migration ${migration.name} waited more than ${TABLE_LOCK_TIMEOUT} for a table that another transaction holds (a running instance or another client); nothing of it was applied, start again when that transaction has ended`,
      { cause: error },
    );
  }
  // A SQLite table is rebuilt as svc_new_<table> (src/plan/migrations/storage/sql.ts): the user knows it as <table>.
  const message = (e.message ?? String(error)).replace(/\bsvc_new_(\w+)\./g, '$1.');
  return new MigrationError(
    // PostgreSQL says which value is at fault in `detail` (e.g. the duplicated key).
    `migration ${migration.name} failed: ${message}${e.detail ? ` (${e.detail})` : ''}${duplicatesHint(message, e, before)}${missingValuesHint(message, before)}; nothing of it was applied (the migrations before it were): fix the data it names and start again, or change the API and generate from the project as it was before this migration`,
    { cause: error },
  );
}

/**
 * For a unique constraint the data breaks, the query that lists the duplicates: SQLite names the
 * columns in its message (`t_author.name`); PostgreSQL in the detail (`Key (name)=(ann) is
 * duplicated.`), and the table apart.
 */
function duplicatesHint(message: string, error: { detail?: string; table?: string }, before: NamesBefore): string {
  const sqlite = /UNIQUE constraint failed: ((?:\w+\.\w+)(?:, \w+\.\w+)*)/.exec(message)?.[1]?.split(', ');
  const table = sqlite?.[0]?.split('.')[0] ?? error.table;
  const columns = sqlite
    ? sqlite.map((c) => (c.startsWith(`${table}.`) ? c.slice(`${table}.`.length) : ''))
    : /^Key \(([\w, ]+)\)=\(.*\) is duplicated\.$/s.exec(error.detail ?? '')?.[1]?.split(', ');
  if (!table || !columns || columns.some((c) => !/^\w+$/.test(c))) return '';
  const names = columns.map((c) => `"${before.column(table, c)}"`).join(', ');
  return ` (rows share a value there: select ${names}, count(*) from "${before.table(table)}" group by ${names} having count(*) > 1)`;
}

/**
 * For a field made required while stored rows have no value (PostgreSQL's `set not null` names the
 * column and table; SQLite's migration says it in its own check): the query that lists them.
 */
function missingValuesHint(message: string, before: NamesBefore): string {
  const found = /column "([^"]+)" of relation "([^"]+)" contains null values/.exec(message);
  if (!found) return '';
  const [, column, table] = found as unknown as [string, string, string];
  const [was, wasColumn] = [before.table(table), before.column(table, column)];
  return ` (a stored row has no value for ${table}.${column}, and the field is now required: find them with select * from "${was}" where "${wasColumn}" is null)`;
}

/** The names of tables and columns as they were before a migration that failed (it was undone). */
interface NamesBefore {
  table(name: string): string;
  column(table: string, name: string): string;
}

/**
 * A failed migration's tables and columns by the names its script gave them, mapped back to those
 * they have again once it was undone: a query in its message must name what is there (a probe's
 * hint named the table a model rename was to make, which did not exist).
 */
function namesBefore(script: string): NamesBefore {
  const name = (quoted: string) => quoted.slice(1, -1).replace(/""/g, '"');
  const quoted = '("(?:[^"]|"")+")';
  const tables = new Map<string, string>();
  for (const [, from, to] of script.matchAll(new RegExp(`alter table ${quoted} rename to ${quoted}`, 'gi'))) {
    // The end of a SQLite rebuild (src/plan/migrations/storage/sql.ts): the copy takes the name of
    // the table it replaces, which keeps the name it had before.
    if (name(from!) === `svc_new_${name(to!)}`) continue;
    const was = tables.get(name(from!)) ?? name(from!);
    tables.delete(name(from!));
    tables.set(name(to!), was);
  }
  const columns = new Map<string, string>();
  for (const [, table, from, to] of script.matchAll(
    new RegExp(`alter table ${quoted} rename column ${quoted} to ${quoted}`, 'gi'),
  )) {
    const key = (column: string) => `${name(table!)}\0${column}`;
    const was = columns.get(key(name(from!))) ?? name(from!);
    columns.delete(key(name(from!)));
    columns.set(key(name(to!)), was);
  }
  return {
    table: (table) => tables.get(table) ?? table,
    column: (table, column) => columns.get(`${table}\0${column}`) ?? column,
  };
}

/**
 * Runs `work` in a transaction of its own once this instance has its turn to migrate. Also the row
 * counts' start-up check (sql/row-counts.ts), which runs after the migrations.
 */
export async function inTurn<T>(session: SqlExecutor, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_SECONDS * 1000;
  for (;;) {
    try {
      return await session.transaction(async (tx) => {
        if (tx.dialect === 'postgres') await takePostgresTurn(tx);
        return work(tx);
      });
    } catch (error) {
      // SQLite: another process has been writing (migrating) for longer than the busy timeout.
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
      if (Date.now() > deadline) throw gaveUp(error);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The advisory lock, held until the transaction ends; then table locks wait TABLE_LOCK_TIMEOUT at most. */
async function takePostgresTurn(tx: SqlExecutor): Promise<void> {
  // A migration may rebuild a large table: database.query_timeout is for requests, not for it.
  await tx.execute(`set local statement_timeout = 0`);
  await tx.execute(`set local lock_timeout = '${WAIT_SECONDS}s'`);
  try {
    await tx.all({ sql: 'select pg_advisory_xact_lock($1)', parameters: [MIGRATION_LOCK] });
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') throw gaveUp(error);
    throw error;
  }
  await tx.execute(`set local lock_timeout = '${TABLE_LOCK_TIMEOUT}'`);
}

function gaveUp(error: unknown): MigrationError {
  return new MigrationError(
    `another instance has been migrating this database for more than ${WAIT_SECONDS} s; this one gives up (start it again when that one has finished)`,
    { cause: error },
  );
}

async function appliedIn(executor: SqlExecutor): Promise<Map<string, string>> {
  const rows = await executor.all<{ name: string; checksum: string }>({
    sql: 'select name, checksum from svc_migrations',
    parameters: [],
  });
  return new Map(rows.map((r) => [r.name, r.checksum]));
}

async function hasMigrationsTable(executor: SqlExecutor): Promise<boolean> {
  const sql =
    executor.dialect === 'sqlite'
      ? "select name from sqlite_master where type = 'table' and name = 'svc_migrations'"
      : "select 1 from pg_tables where tablename = 'svc_migrations' and schemaname = any (current_schemas(false))";
  return (await executor.all({ sql, parameters: [] })).length > 0;
}
