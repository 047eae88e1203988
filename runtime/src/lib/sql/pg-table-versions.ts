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
 *   trigger, deferred), once per transaction, so that a writer of those tables takes the row's
 *   lock only while it commits: one that does more after writing a user (a handler's work) holds
 *   up no one, and none waits for the row while it holds others' rows' locks. A truncate, which no
 *   row trigger sees, moves it as it happens. The triggers fire `always`, so that a session with
 *   `session_replication_role = replica` (a restore, logical replication) moves it too; their
 *   function runs as the service's role (`security definer`), with the table named by its schema
 *   and a search_path of its own, so that another role that may write the users (a DBA, a
 *   replication worker, a role of the service's schema elsewhere) moves the service's version,
 *   and never fails for it; with the table gone it moves nothing, and fails nothing.
 * - The version says, besides the number, which row version of `svc_table_versions` and of each
 *   trigger in `pg_trigger` it was read from (their xmin): a row deleted and made again, counting
 *   from 0, a trigger disabled, written around and enabled again (`pg_restore --disable-triggers`
 *   does), dropped and made again, is another version even where no read saw it gone, so nothing
 *   kept before counts (an attacker probe's demoted member was an admin again 30 s later). While a
 *   trigger is gone or off, or the table is, there is no version: every request reads its caller.
 * - What is missing is made, in a transaction of its own that waits at most `INSTALL_LOCK_TIMEOUT`
 *   for a table's lock, while requests go on without a version (none waits for it); where it cannot
 *   be (the service's role does not own the tables), nothing is kept, as before. Found gone after
 *   it was there, it is made again after `REINSTALL_MS`, not at once: an operator who disabled a
 *   trigger for a bulk load has it back when they are done.
 * - The requests identified in one turn of the event loop share one read of the version, sent
 *   after the last of them asked (at the turn's end): each request was received before the read
 *   was sent, so the version it is judged by is at least as new as its arrival. One statement a
 *   turn replaces the user's and credential's read per request.
 */
import { createHash } from 'node:crypto';
import type { TableVersion } from '../database.js';
import { identifier, stringLiteral } from './quoting.js';
import type { Compiled } from './types.js';

/** How the version is read (a statement on the pipelined connection) and what is missing made (a script, in a transaction). */
export interface PgVersionDriver {
  readonly read: (query: Compiled) => Promise<readonly Record<string, unknown>[]>;
  readonly execute: (script: string) => Promise<void>;
}

/** After the triggers could not be made, or were found gone, the next try waits this long. */
const REINSTALL_MS = 30_000;
/** How long making the triggers waits for a table that a transaction is writing. */
const INSTALL_LOCK_TIMEOUT = '1s';

export function pgTableVersions(driver: PgVersionDriver): (tables: readonly string[]) => TableVersion {
  return (tables) => new WatchedTables(driver, [...new Set(tables)].sort()).version;
}

class WatchedTables {
  readonly #driver: PgVersionDriver;
  readonly #tables: readonly string[];
  readonly #key: string;
  /** The triggers' names: a row's change (deferred to the commit), and a truncate. */
  readonly #triggers: readonly [string, string];
  /** Of the setting that says, for one transaction, that it moved the version already. */
  readonly #hash: string;
  /** Whether the last read found the row and every trigger. */
  #watching = false;
  /** When what was missing was last made, or found gone: reads and tries wait REINSTALL_MS after. */
  #triedAt = -Infinity;
  #installing = false;
  /** The read this turn's callers share, until it is sent. */
  #pending: Promise<string | undefined> | undefined;

  constructor(driver: PgVersionDriver, tables: readonly string[]) {
    this.#driver = driver;
    this.#tables = tables;
    this.#key = tables.join(',');
    this.#hash = createHash('sha256').update(this.#key).digest('hex').slice(0, 12);
    const name = `svc_watch_${this.#hash}`;
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
    // Known to be missing, and not to be made yet: no statement that would fail.
    if (!this.#watching && performance.now() - this.#triedAt < REINSTALL_MS) return undefined;
    const [row] = await this.#driver
      .read({
        sql: `select v.version::text || '.' || v.xmin::text as version,
            string_agg(t.oid::text || '.' || t.xmin::text, ',' order by t.oid) as triggers, count(t.oid)::int as watching
          from svc_table_versions v
          left join pg_trigger t on t.tgname = any ($2::text[]) and t.tgenabled = 'A'
            and t.tgrelid = any (array(select to_regclass(name) from unnest($3::text[]) as name))
          where v.tables = $1 group by v.version, v.xmin::text`,
        parameters: [this.#key, this.#triggers, this.#tables.map(identifier)],
      })
      .catch(() => []); // the table itself is gone
    if (row && row['watching'] === this.#triggers.length * this.#tables.length) {
      this.#watching = true;
      return `${String(row['version'])}:${String(row['triggers'])}`;
    }
    if (this.#watching) {
      // Gone since the last read: made again later, not under the feet of whoever took it away.
      this.#watching = false;
      this.#triedAt = performance.now();
    } else this.#install();
    return undefined;
  }

  /** Makes what is missing, in the background: requests meanwhile read their callers. */
  #install(): void {
    if (this.#installing) return;
    this.#installing = true;
    this.#triedAt = performance.now();
    this.#driver
      .read({ sql: 'select current_schema() as schema', parameters: [] })
      .then(([row]) => {
        if (typeof row?.['schema'] !== 'string') throw new Error('no schema to make the version table in');
        return this.#driver.execute(this.#script(row['schema']));
      })
      .then(
        // Made: the next request reads the version.
        () => (this.#triedAt = -Infinity),
        // Not the tables' owner, say, or a table's lock not had in time: tried again later.
        () => undefined,
      )
      .finally(() => (this.#installing = false));
  }

  /** The row, the function and the triggers, made where they are not, in the service's schema. */
  #script(schema: string): string {
    const key = stringLiteral(this.#key);
    const table = `${identifier(schema)}.svc_table_versions`;
    const written = `${identifier(schema)}.svc_table_written`;
    const [changes, truncates] = this.#triggers.map(identifier);
    const missing = (name: string, trigger: string) =>
      `not exists (select 1 from pg_trigger where tgrelid = ${stringLiteral(identifier(name))}::regclass and tgname = ${stringLiteral(trigger)})`;
    const once = stringLiteral(`svc_watch.w${this.#hash}`);
    return [
      `set local lock_timeout = '${INSTALL_LOCK_TIMEOUT}'`,
      `create table if not exists ${table} (tables text primary key, version bigint not null)`,
      `insert into ${table} (tables, version) values (${key}, 0) on conflict (tables) do nothing`,
      // tg_argv: the set of tables, and the name of the setting that says this transaction moved it.
      `create or replace function ${written}() returns trigger language plpgsql
security definer set search_path = pg_catalog, pg_temp as $$
begin
  if current_setting(tg_argv[1], true) is distinct from 'moved' then
    if to_regclass(${stringLiteral(table)}) is not null then
      update ${table} set version = version + 1 where tables = tg_argv[0];
    end if;
    perform set_config(tg_argv[1], 'moved', true);
  end if;
  return null;
end $$`,
      ...this.#tables.flatMap((name) => [
        `do $$ begin
  if ${missing(name, this.#triggers[0])} then
    create constraint trigger ${changes} after insert or update or delete on ${identifier(name)}
      deferrable initially deferred for each row execute function ${written}(${key}, ${once});
  end if;
  if ${missing(name, this.#triggers[1])} then
    create trigger ${truncates} after truncate on ${identifier(name)}
      for each statement execute function ${written}(${key}, ${once});
  end if;
end $$`,
        `alter table ${identifier(name)} enable always trigger ${changes}`,
        `alter table ${identifier(name)} enable always trigger ${truncates}`,
      ]),
    ].join(';\n');
  }
}
