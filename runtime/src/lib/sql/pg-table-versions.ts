/**
 * A version of some tables' rows on PostgreSQL, as table-versions.ts gives on SQLite: another
 * value once any of their rows has been inserted, changed or deleted, or a table truncated, by
 * this process or another, SQL behind the service's back included. It lets authentication keep
 * whom a request's credentials name (lib/auth/unchanged-reads.ts) while the user and credential
 * tables are unchanged, instead of reading the user and their credential for every request.
 *
 * - A row of `svc_table_versions` per set of tables, its `version` moved in the writing transaction
 *   by triggers on each table: a version read after a commit is seen reads that commit's version,
 *   never one without it. A row's insert, change or delete moves it at the commit (a constraint
 *   trigger, deferred), so that a writer of those tables takes the row's lock only while it
 *   commits: one that does more after writing a user (a handler's work) does not hold up the
 *   others, and none waits for the row while it holds others' rows' locks. A truncate, which no
 *   row trigger sees, moves it as it happens. The triggers fire `always`, so that a session with
 *   `session_replication_role = replica` (a restore, logical replication) moves it too.
 * - The version read also says which triggers are there: a table dropped and made again (its
 *   triggers gone), a trigger dropped or disabled, and there is no version (every request reads
 *   its caller) until they are made again; made again, they are other triggers, and so another
 *   version: nothing kept before counts.
 * - The triggers and the row are made at the first read (the service's role must own the tables:
 *   where it may not, nothing is kept, and every request reads, as before), and again when a read
 *   finds them gone, at most every `REINSTALL_MS`.
 * - The requests identified in one turn of the event loop share one read of the version, sent
 *   after the last of them asked (at the turn's end): each request was received before the read
 *   was sent, so the version it is judged by is at least as new as its arrival. One statement a
 *   turn replaces the user's and credential's read per request.
 */
import { createHash } from 'node:crypto';
import type { TableVersion } from '../database.js';
import { identifier, stringLiteral } from './quoting.js';
import type { Compiled } from './types.js';

/** How the version is read (a statement on the pipelined connection) and the triggers made (a script). */
export interface PgVersionDriver {
  readonly read: (query: Compiled) => Promise<readonly Record<string, unknown>[]>;
  readonly execute: (script: string) => Promise<void>;
}

/** After the triggers could not be made or were found gone, the next try waits this long. */
const REINSTALL_MS = 30_000;

export function pgTableVersions(driver: PgVersionDriver): (tables: readonly string[]) => TableVersion {
  return (tables) => new WatchedTables(driver, [...new Set(tables)].sort()).version;
}

class WatchedTables {
  readonly #driver: PgVersionDriver;
  readonly #tables: readonly string[];
  readonly #key: string;
  /** A row's change (deferred to the commit), and a truncate (a statement's). */
  readonly #triggers: readonly [string, string];
  #installed: Promise<boolean> | undefined;
  #failedAt = -Infinity;
  /** The read this turn's callers share, until it is sent. */
  #pending: Promise<string | undefined> | undefined;

  constructor(driver: PgVersionDriver, tables: readonly string[]) {
    this.#driver = driver;
    this.#tables = tables;
    this.#key = tables.join(',');
    const name = `svc_watch_${createHash('sha256').update(this.#key).digest('hex').slice(0, 12)}`;
    this.#triggers = [name, `${name}_truncate`];
  }

  /** The version: a promise shared by the callers of one turn. */
  readonly version = (): Promise<string | undefined> => {
    if (this.#pending) return this.#pending;
    let settle!: (version: string | undefined) => void;
    const pending = new Promise<string | undefined>((resolve) => (settle = resolve));
    this.#pending = pending;
    setImmediate(() => {
      // Sent now, after every caller that shares it asked: a caller from here on gets a read of its own.
      this.#pending = undefined;
      this.#read().then(settle, () => settle(undefined));
    });
    return pending;
  };

  async #read(): Promise<string | undefined> {
    if (!(await this.#ready())) return undefined;
    const [row] = await this.#driver.read({
      sql: `select v.version::text as version, array_to_string(array_agg(t.oid order by t.oid), ',') as triggers, count(t.oid)::int as watching
        from svc_table_versions v
        left join pg_trigger t on t.tgname = any ($2::text[]) and t.tgenabled = 'A'
          and t.tgrelid = any (array(select to_regclass(name) from unnest($3::text[]) as name))
        where v.tables = $1 group by v.version`,
      parameters: [this.#key, this.#triggers, this.#tables.map(identifier)],
    });
    if (row && row['watching'] === this.#triggers.length * this.#tables.length)
      return `${String(row['version'])}:${String(row['triggers'])}`;
    // A trigger or the row gone: none until they are made again.
    this.#installed = undefined;
    this.#failedAt = performance.now();
    return undefined;
  }

  /** Whether the row and the triggers are there (made now, if not yet). */
  #ready(): Promise<boolean> {
    if (!this.#installed) {
      if (performance.now() - this.#failedAt < REINSTALL_MS) return Promise.resolve(false);
      this.#installed = this.#driver.execute(this.#script()).then(
        () => true,
        () => {
          // Not the tables' owner, say, or another instance making them at the same moment.
          this.#installed = undefined;
          this.#failedAt = performance.now();
          return false;
        },
      );
    }
    return this.#installed;
  }

  /** The row, the function and the triggers, made where they are not (one script: one transaction). */
  #script(): string {
    const key = stringLiteral(this.#key);
    const [changes, truncates] = this.#triggers.map(identifier);
    const missing = (table: string, trigger: string) =>
      `not exists (select 1 from pg_trigger where tgrelid = ${stringLiteral(identifier(table))}::regclass and tgname = ${stringLiteral(trigger)})`;
    return [
      'create table if not exists svc_table_versions (tables text primary key, version bigint not null)',
      `insert into svc_table_versions (tables, version) values (${key}, 0) on conflict (tables) do nothing`,
      `create or replace function svc_table_written() returns trigger language plpgsql as $$
begin
  update svc_table_versions set version = version + 1 where tables = tg_argv[0];
  return null;
end $$`,
      ...this.#tables.flatMap((table) => [
        `do $$ begin
  if ${missing(table, this.#triggers[0])} then
    create constraint trigger ${changes} after insert or update or delete on ${identifier(table)}
      deferrable initially deferred for each row execute function svc_table_written(${key});
  end if;
  if ${missing(table, this.#triggers[1])} then
    create trigger ${truncates} after truncate on ${identifier(table)}
      for each statement execute function svc_table_written(${key});
  end if;
end $$`,
        `alter table ${identifier(table)} enable always trigger ${changes}`,
        `alter table ${identifier(table)} enable always trigger ${truncates}`,
      ]),
    ].join(';\n');
  }
}
