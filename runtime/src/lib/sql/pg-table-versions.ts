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
 *   trigger, deferred), once per transaction (the row keeps which transaction moved it last), so
 *   that a writer of those tables takes the row's lock only while it commits: one that does more
 *   after writing a user (a handler's work) holds up no one, and none waits for the row while it
 *   holds others' rows' locks. A truncate, which no row trigger sees, moves it as it happens. The
 *   triggers fire `always`, so that a session with `session_replication_role = replica` (a
 *   restore, a logical replication worker) moves it too. Their function runs as the service's role
 *   (`security definer`), with a search_path of its own and the table named by its schema, so that
 *   another role that may write the users (a DBA, a replication worker) moves the service's
 *   version and never fails for it; with the table gone it moves nothing, and fails nothing. It
 *   moves only the version of its own tables, and no role but the service's may attach it to a
 *   trigger (a stranger's trigger on a temporary table held the row's lock as long as it liked).
 * - The version says, besides the number, which row versions (xmin) it was read from: of the
 *   version row, of each trigger in `pg_trigger`, and of each table in `pg_class` (with its file),
 *   and when the server started. So a row deleted and made again counting from 0, a trigger
 *   disabled, written around and enabled again (`pg_restore --disable-triggers` does), dropped and
 *   made again, a table rewritten by `alter table … type … using` (which fires no trigger), a
 *   failover to a standby or a restore to a point in time (where transaction ids are used again),
 *   is another version even where no read saw it happen, so nothing kept before counts (attacker
 *   reviews' demoted members were admins again). While a trigger is gone or off, or the table is,
 *   there is no version: every request reads its caller.
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
  /** Of the set of tables: in the names of the triggers and of their function. */
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
        sql: `with watched as (select to_regclass(name) as oid from unnest($3::text[]) as name)
          select v.version::text || '.' || v.xmin::text || '.' || extract(epoch from pg_postmaster_start_time())::text as version,
            string_agg(t.oid::text || '.' || t.xmin::text, ',' order by t.oid) as triggers, count(t.oid)::int as watching,
            (select string_agg(c.oid::text || '.' || c.xmin::text || '.' || c.relfilenode::text, ',' order by c.oid)
              from pg_class c join watched w on c.oid = w.oid) as tables
          from svc_table_versions v
          left join pg_trigger t on t.tgname = any ($2::text[]) and t.tgenabled = 'A'
            and t.tgrelid in (select oid from watched)
          where v.tables = $1 group by v.version, v.xmin::text`,
        parameters: [this.#key, this.#triggers, this.#tables.map(identifier)],
      })
      .catch(() => []); // the table itself is gone
    if (row && row['watching'] === this.#triggers.length * this.#tables.length) {
      this.#watching = true;
      return `${String(row['version'])}:${String(row['triggers'])}:${String(row['tables'])}`;
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
    // One function per set of tables, that moves their version and nothing else, whoever's trigger calls it.
    const written = `${identifier(schema)}.${identifier(`svc_table_written_${this.#hash}`)}`;
    const [changes, truncates] = this.#triggers.map(identifier);
    const ours = (name: string, trigger: string) =>
      `${stringLiteral(identifier(name))}::regclass and tgname = ${stringLiteral(trigger)}`;
    const watched = this.#tables.map(stringLiteral).join(', ');
    return [
      `set local lock_timeout = '${INSTALL_LOCK_TIMEOUT}'`,
      `create table if not exists ${table} (tables text primary key, version bigint not null, xact bigint)`,
      `alter table ${table} add column if not exists xact bigint`,
      `insert into ${table} (tables, version) values (${key}, 0) on conflict (tables) do nothing`,
      // Once per transaction (the row says which moved it last): a setting any session may set would hide a write.
      `create or replace function ${written}() returns trigger language plpgsql
security definer set search_path = pg_catalog, pg_temp as $$
begin
  if tg_table_schema = ${stringLiteral(schema)} and tg_table_name in (${watched})
      and to_regclass(${stringLiteral(table)}) is not null then
    update ${table} set version = version + 1, xact = txid_current()
      where tables = ${key} and xact is distinct from txid_current();
  end if;
  return null;
end $$`,
      // Only the triggers below call it: no other role may make one that does.
      `revoke all on function ${written}() from public`,
      ...this.#tables.flatMap((name) => [
        `do $$ begin
  if exists (select 1 from pg_trigger where tgrelid = ${ours(name, this.#triggers[0])} and tgfoid <> ${stringLiteral(written)}::regproc) then
    drop trigger ${changes} on ${identifier(name)};
  end if;
  if exists (select 1 from pg_trigger where tgrelid = ${ours(name, this.#triggers[1])} and tgfoid <> ${stringLiteral(written)}::regproc) then
    drop trigger ${truncates} on ${identifier(name)};
  end if;
  if not exists (select 1 from pg_trigger where tgrelid = ${ours(name, this.#triggers[0])}) then
    create constraint trigger ${changes} after insert or update or delete on ${identifier(name)}
      deferrable initially deferred for each row execute function ${written}();
  end if;
  if not exists (select 1 from pg_trigger where tgrelid = ${ours(name, this.#triggers[1])}) then
    create trigger ${truncates} after truncate on ${identifier(name)}
      for each statement execute function ${written}();
  end if;
end $$`,
        `alter table ${identifier(name)} enable always trigger ${changes}`,
        `alter table ${identifier(name)} enable always trigger ${truncates}`,
      ]),
    ].join(';\n');
  }
}
