/**
 * The version of some tables' rows (runtime/src/lib/sql/table-versions.ts), on SQLite: it moves
 * when the service's connection writes a watched table (an insert, an update, a delete, a
 * cascade), not another table; at any commit of another connection; at every schema change,
 * after which its triggers still count (the service's own DROP drops them, its own rename takes
 * them along: they are made again); there is none inside a transaction, nor while a watched table
 * is gone. On PostgreSQL (pg-table-versions.ts): moved by triggers in the writing transaction,
 * read once per turn of the event loop, none while a trigger is gone or off. test/e2e/api-key.e2e.test.ts,
 * test/e2e/trust.e2e.test.ts and test/e2e/pg-remembered-callers.e2e.test.ts check what
 * authentication keeps by it, over HTTP.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { TableVersion } from '../../runtime/src/lib/database.js';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { testDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two connections to one new SQLite file: the service's and someone else's. */
async function opened(): Promise<{ service: SqlDatabase; behind: SqlDatabase }> {
  const database = await testDatabase('sqlite', repoRoot, 'table_versions');
  const { url } = database;
  cleanups.push(() => database.drop());
  const open = () => {
    const db = openSql(url);
    cleanups.push(() => db.close());
    return db;
  };
  const behind = open();
  await behind.execute(TABLES);
  return { service: open(), behind };
}

/** The watched tables (a user and their credential) and one that is not watched, with rows. */
const TABLES = `
  create table "user" (id integer primary key, groups text not null);
  create table credential (user_id integer not null references "user" (id) on delete cascade, epoch integer not null);
  create table story (id integer primary key, title text not null);
  insert into "user" (id, groups) values (1, 'admin'), (2, 'member');
  insert into credential (user_id, epoch) values (1, 0), (2, 0);`;

const run = (db: SqlDatabase, sql: string) => db.run({ sql, parameters: [] });

/** The user table made again, as SQLite's migrations rebuild a table: a copy, the old one dropped, the copy renamed. */
const REBUILD_USER = `
  create table user_new (id integer primary key, groups text not null);
  insert into user_new select * from "user";
  drop table "user";
  alter table user_new rename to "user";`;

/** `version`'s value, and whether it moved since the last call (SQLite's: known at once). */
function tracked(version: TableVersion) {
  const known = () => {
    const now = version();
    if (now instanceof Promise) throw new Error('a version known at once was expected');
    return now;
  };
  let last = known();
  return () => {
    const now = known();
    const changed = now !== last;
    last = now;
    return changed;
  };
}

describe('table versions', () => {
  it("move at every write of a watched table by the service's connection, and at no other of its writes", async () => {
    const { service } = await opened();
    const version = service.tableVersion!(['user', 'credential']);
    expect(version()).toMatch(/^\d+:\d+:\d+$/);
    const moved = tracked(version);
    expect(moved()).toBe(false);

    await run(service, `insert into story (title) values ('not watched')`);
    await run(service, `update story set title = 'still not'`);
    expect(moved()).toBe(false);

    await run(service, `update "user" set groups = 'member' where id = 1`);
    expect(moved()).toBe(true);
    await run(service, `update credential set epoch = 1 where user_id = 2`);
    expect(moved()).toBe(true);
    await run(service, `insert into "user" (id, groups) values (3, 'member')`);
    expect(moved()).toBe(true);
    // An update that changes no value is still a write.
    await run(service, `update "user" set groups = groups where id = 3`);
    expect(moved()).toBe(true);
    // The credentials a user's delete cascades to.
    await run(service, `delete from credential where user_id = 2`);
    expect(moved()).toBe(true);
    await run(service, `insert into credential (user_id, epoch) values (3, 0)`);
    moved();
    await run(service, `delete from "user" where id = 3`);
    expect(
      await service.all({ sql: 'select count(*) as n from credential where user_id = 3', parameters: [] }),
    ).toEqual([{ n: 0 }]);
    expect(moved()).toBe(true);
  });

  it('are none inside a transaction: neither its writes nor what others commit meanwhile are seen', async () => {
    const { service, behind } = await opened();
    const version = service.tableVersion!(['user']);
    const before = version();
    await service.transaction(async (tx) => {
      expect(version()).toBeUndefined();
      await tx.run({ sql: `update "user" set groups = 'member' where id = 1`, parameters: [] });
      expect(version()).toBeUndefined();
    });
    const after = version();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // A write rolled back moves it too: what was kept before it is forgotten, never kept too long.
    await expect(
      service.transaction(async (tx) => {
        await tx.run({ sql: `update "user" set groups = 'admin' where id = 1`, parameters: [] });
        throw new Error('changed their mind');
      }),
    ).rejects.toThrow('changed their mind');
    expect(version()).not.toBe(after);
    // Another connection's commit, whatever it wrote.
    const moved = tracked(version);
    await run(behind, `insert into story (title) values ('by someone else')`);
    expect(moved()).toBe(true);
    await run(behind, `update "user" set groups = 'admin' where id = 1`);
    expect(moved()).toBe(true);
  });

  it('move at every schema change, and count on after it, even once the service dropped a table', async () => {
    const { service, behind } = await opened();
    const version = service.tableVersion!(['user', 'credential']);
    const moved = tracked(version);

    // Rebuilt by another connection (as a migration by hand would): the triggers follow the name.
    await behind.execute(REBUILD_USER);
    expect(moved()).toBe(true);
    await run(service, `update "user" set groups = 'x' where id = 1`);
    expect(moved()).toBe(true);

    // Dropped by the service's own connection, which drops its triggers: made again at the next version.
    await service.execute(REBUILD_USER);
    expect(moved()).toBe(true);
    await run(service, `update "user" set groups = 'y' where id = 1`);
    expect(moved()).toBe(true);

    // A table gone: no version until it is back (the service answers by reading).
    await service.execute(`alter table "user" rename to user_away`);
    expect(version()).toBeUndefined();
    await service.execute(`alter table user_away rename to "user"`);
    expect(version()).toBeDefined();
    moved();
    await run(service, `update "user" set groups = 'z' where id = 1`);
    expect(moved()).toBe(true);
  });

  it("count on after the service's own connection renamed the table away, or first read inside a transaction", async () => {
    const { service } = await opened();
    // Read first inside a transaction that rolls back: the triggers are made at the first read outside one.
    let version!: TableVersion;
    await service
      .transaction(async (tx) => {
        version = service.tableVersion!(['user', 'credential']);
        expect(version()).toBeUndefined();
        await tx.run({ sql: `update story set title = 'in the transaction'`, parameters: [] });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    const moved = tracked(version);
    await run(service, `update "user" set groups = 'a' where id = 1`);
    expect(moved()).toBe(true);

    // Renamed away by the service's own connection (its triggers go along), a new table under the name.
    await service.execute(`alter table "user" rename to user_old;
      create table "user" (id integer primary key, groups text not null);
      insert into "user" select * from user_old;`);
    moved();
    await run(service, `update "user" set groups = 'b' where id = 1`);
    expect(moved()).toBe(true);
    await run(service, `update user_old set groups = 'c' where id = 1`);
    expect(moved()).toBe(false);
  });

  it('are kept on an in-memory database too', async () => {
    const memory = openSql('sqlite::memory:');
    cleanups.push(() => memory.close());
    await memory.execute('create table "user" (id integer primary key)');
    const moved = tracked(memory.tableVersion!(['user']));
    await run(memory, 'insert into "user" (id) values (1)');
    expect(moved()).toBe(true);
    expect(moved()).toBe(false);
  });
});

describe('table versions on PostgreSQL', () => {
  /** The service's database and someone else's connection to it, with the tables of `opened`. */
  async function openedPostgres() {
    const database = await freshPostgresDatabase(repoRoot, 'table_versions');
    cleanups.push(() => database.drop());
    const statements: string[] = [];
    const service = openSql(database.url, { onQuery: (sql) => statements.push(sql) });
    const behind = openSql(database.url);
    cleanups.push(
      () => behind.close(),
      () => service.close(),
    );
    await behind.execute(TABLES);
    return { service, behind, statements, url: database.url };
  }

  /** A connection as a new login role, granted `grants` (`select … on …`), dropped after the test. */
  async function asRole(behind: SqlDatabase, url: string, kind: string, grants?: string): Promise<SqlDatabase> {
    const role = `svc_${kind}_${process.pid}`;
    await behind.execute(
      `create role ${role} login password '${kind}-password'${grants ? `; grant ${grants} to ${role}` : ''}`,
    );
    cleanups.push(() => behind.execute(`drop owned by ${role}; drop role ${role}`));
    const at = new URL(url);
    at.username = role;
    at.password = `${kind}-password`;
    const db = openSql(at.toString());
    cleanups.push(() => db.close());
    return db;
  }

  /** The version once the triggers are made (in the background, after the first read finds them missing). */
  async function made(version: TableVersion): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const now = await version();
      if (now !== undefined) return now;
      await sleep(50);
    }
    throw new Error('the version table and triggers were not made');
  }

  it('move at every write of a watched table, by anyone, and at no other write; one read a turn', async () => {
    const { service, behind, statements } = await openedPostgres();
    const version = service.tableVersion!(['user', 'credential']);
    // None until the triggers are made: the first read does not wait for them.
    expect(await version()).toBeUndefined();
    const first = await made(version);
    // The number and what it was read from: the row, the server's start; the triggers; the tables.
    expect(first).toMatch(/^\d+\.\d+\.[\d.]+:\d+\.\d+(,\d+\.\d+){3}:\d+\.\d+\.\d+,\d+\.\d+\.\d+$/);
    // The callers of one turn share one read; a caller after it is sent gets its own.
    const read = () => statements.filter((s) => s.includes('from svc_table_versions')).length;
    const before = read();
    const [a, b, c] = await Promise.all([version(), version(), version()]);
    expect([a, b, c]).toEqual([first, first, first]);
    expect(read()).toBe(before + 1);
    expect(await version()).toBe(first);
    expect(read()).toBe(before + 2);

    await run(behind, `insert into story (id, title) values (1, 'not watched')`);
    expect(await version()).toBe(first);
    const seen = [first];
    for (const write of [
      `update "user" set groups = 'member' where id = 1`,
      `update credential set epoch = 1 where user_id = 2`,
      // A change that writes the value a row has is still a write.
      `update "user" set groups = groups where id = 1`,
      `delete from "user" where id = 2`,
      `truncate credential`,
    ]) {
      await run(behind, write);
      const now = await made(version);
      expect(seen, write).not.toContain(now);
      seen.push(now);
    }
    // A statement that changes no row changes nothing anyone is identified by.
    await run(behind, `update "user" set groups = 'x' where id = 99`);
    expect(await version()).toBe(seen.at(-1));
    // Inside a transaction that is not committed yet, nothing moves for another reader.
    await behind.transaction(async (tx) => {
      await tx.run({ sql: `update "user" set groups = 'x'`, parameters: [] });
      expect(await version()).toBe(seen.at(-1));
    });
    expect(await version()).not.toBe(seen.at(-1));
    // A transaction's many rows move the number once.
    const number = async () =>
      Number(
        (await behind.all<{ version: string }>({ sql: 'select version from svc_table_versions', parameters: [] }))[0]!
          .version,
      );
    const was = await number();
    await run(behind, `insert into "user" (id, groups) values (10, 'a'), (11, 'b'), (12, 'c')`);
    expect(await number()).toBe(was + 1);
  });

  it("are moved at a writer's commit: a transaction that writes a user and goes on holds up no other writer of them", async () => {
    const { service, behind, url } = await openedPostgres();
    const version = service.tableVersion!(['user', 'credential']);
    const first = await made(version);
    const other = openSql(url);
    cleanups.push(() => other.close());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const long = behind.transaction(async (tx) => {
      await tx.run({ sql: `update "user" set groups = 'long' where id = 1`, parameters: [] });
      await held;
    });
    // Another user's write commits while the first transaction is open; the version moves with it.
    await other.run({ sql: `update "user" set groups = 'quick' where id = 2`, parameters: [] });
    const quick = await version();
    expect(quick).not.toBe(first);
    release();
    await long;
    expect(await version()).not.toBe(quick);
  });

  it('are none while a trigger is gone or off; and never one seen before, however the triggers or the row came back', async () => {
    const { service, behind } = await openedPostgres();
    const version = service.tableVersion!(['user', 'credential']);
    const first = await made(version);
    const [{ tgname }] = (await behind.all({
      sql: `select tgname from pg_trigger where tgrelid = '"user"'::regclass and tgname like 'svc_watch_%' and tgname not like '%_truncate'`,
      parameters: [],
    })) as [{ tgname: string }];
    // Off, written around, and on again in one transaction, between two reads (as pg_restore --disable-triggers does):
    // no read saw it off, and the write moved no number; the trigger's row did change.
    await behind.execute(
      `begin; alter table "user" disable trigger ${tgname}; update "user" set groups = 'demoted' where id = 1; alter table "user" enable always trigger ${tgname}; commit`,
    );
    const after = await version();
    expect(after).toBeDefined();
    expect(after).not.toBe(first);
    // The row deleted and made again with the number it had (a restore of an old copy): another version.
    const [{ version: number }] = (await behind.all({
      sql: 'select version from svc_table_versions',
      parameters: [],
    })) as [{ version: string }];
    await behind.execute(
      `begin; delete from svc_table_versions; insert into svc_table_versions (tables, version) values ('credential,user', ${number}); commit`,
    );
    const restored = await version();
    expect(restored).toBeDefined();
    expect([first, after]).not.toContain(restored);
    // Off: none; on again, not made again at once (at most every 30 s): still none meanwhile.
    await behind.execute(`alter table "user" disable trigger ${tgname}`);
    expect(await version()).toBeUndefined();
    await behind.execute(`alter table "user" enable always trigger ${tgname}`);
    expect(await version()).toBeUndefined();
  });

  it('let anyone who may write the users write them: another search_path, a role that may only write, the version table gone', async () => {
    const { service, behind, url } = await openedPostgres();
    const version = service.tableVersion!(['user', 'credential']);
    const first = await made(version);
    // A session whose search_path does not find the service's tables moves the service's version.
    await behind.execute(
      `begin; set local search_path = pg_catalog; update public."user" set groups = 'elsewhere' where id = 1; commit`,
    );
    const moved = await version();
    expect(moved).not.toBe(first);
    // A role granted the users' rows only, not the version table: its writes go through, and move it.
    const writer = await asRole(behind, url, 'writer', 'select, insert, update, delete on "user", credential');
    await writer.run({ sql: `update "user" set groups = 'by a writer' where id = 1`, parameters: [] });
    expect(await version()).not.toBe(moved);
    // The version table dropped behind the service's back: writes of the users still go through.
    await behind.execute('drop table svc_table_versions');
    await writer.run({ sql: `update "user" set groups = 'no table' where id = 1`, parameters: [] });
    await run(behind, `insert into credential (user_id, epoch) values (1, 5)`);
    expect(await version()).toBeUndefined();
  });

  it('move at a rewrite of a table, which fires no trigger, and for each service of one database alone', async () => {
    const { service, behind, url } = await openedPostgres();
    const version = service.tableVersion!(['user', 'credential']);
    const first = await made(version);
    await behind.execute(
      `alter table "user" alter column groups type text using (case when id = 1 then 'rewritten' else groups end)`,
    );
    expect(await version()).not.toBe(first);
    // Two services in schemas of one database: a transaction that writes both moves both.
    const inSchema = (schema: string) => {
      const at = new URL(url);
      at.searchParams.set('options', `-c search_path=${schema}`);
      const db = openSql(at.toString());
      cleanups.push(() => db.close());
      return db;
    };
    await behind.execute(`create schema sa; create schema sb;
      set search_path = sa; ${TABLES}
      set search_path = sb; ${TABLES}
      reset search_path;`);
    const [a, b] = [inSchema('sa'), inSchema('sb')].map((db) => db.tableVersion!(['user', 'credential']));
    const [beforeA, beforeB] = [await made(a!), await made(b!)];
    await behind.execute(
      `begin; update sa."user" set groups = 'x' where id = 1; update sb."user" set groups = 'x' where id = 1; commit`,
    );
    expect(await a!()).not.toBe(beforeA);
    expect(await b!()).not.toBe(beforeB);
  });

  it('let no other role attach their function to a trigger of its own', async () => {
    const { service, behind, url } = await openedPostgres();
    await made(service.tableVersion!(['user', 'credential']));
    const stranger = await asRole(behind, url, 'stranger');
    const [{ name }] = (await behind.all({
      sql: `select proname as name from pg_proc where proname like 'svc_table_written_%'`,
      parameters: [],
    })) as [{ name: string }];
    await expect(
      stranger.execute(
        `create temp table t (x integer); create trigger z after insert on t for each row execute function public.${name}()`,
      ),
    ).rejects.toThrow(/permission denied/);
  });

  it("are none where the service may not make its triggers (not the tables' owner), and nothing fails", async () => {
    const { behind, url } = await openedPostgres();
    const service = await asRole(
      behind,
      url,
      'reader',
      'select, insert, update, delete on all tables in schema public',
    );
    const version = service.tableVersion!(['user', 'credential']);
    expect(await version()).toBeUndefined();
    expect(await version()).toBeUndefined();
    const triggers = await behind.all({
      sql: `select 1 from pg_trigger where tgname like 'svc_watch_%'`,
      parameters: [],
    });
    expect(triggers).toEqual([]);
  });
});
