/**
 * SQLite's reads of one turn of the event loop share one read transaction on the reader
 * connection (runtime/src/lib/sql/turn-snapshot.ts). What must hold: the service's own commits
 * are seen by every read after them, whichever way they were made (a grouped write, a
 * transaction, a statement alone); another connection's commit is seen from the next turn, and
 * at once after a table version saw it (what authentication keeps by that version is never read
 * from before the change); the transaction ends with the turn, so nothing waits on it; a
 * connection closed with one open does not end the process.
 */
import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { TurnSnapshot } from '../../runtime/src/lib/sql/turn-snapshot.js';
import { testDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';

// The runtime's own driver (runtime/node_modules): the repository's root does not depend on it.
const Database = createRequire(new URL('../../runtime/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
) => { readonly open: boolean; readonly inTransaction: boolean; close(): void };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two connections to one new SQLite file: the service's and someone else's. */
async function opened(): Promise<{ service: SqlDatabase; behind: SqlDatabase }> {
  const database = await testDatabase('sqlite', repoRoot, 'turn_snapshot');
  cleanups.push(() => database.drop());
  const open = () => {
    const db = openSql(database.url);
    cleanups.push(() => db.close());
    return db;
  };
  const behind = open();
  await behind.execute(`create table "user" (id integer primary key, groups text not null);
    insert into "user" (id, groups) values (1, 'member');`);
  return { service: open(), behind };
}

const run = (db: SqlDatabase, sql: string) => db.run({ sql, parameters: [] });
const groupsOf = async (db: SqlDatabase) =>
  (await db.all<{ groups: string }>({ sql: 'select groups from "user" where id = 1', parameters: [] }))[0]?.groups;

describe("SQLite's reads of one turn", () => {
  it("see the service's own commits at once: a grouped write, a transaction, a statement alone", async () => {
    const { service } = await opened();
    // A grouped write is made at the end of the turn; a read after it was asked for opens the
    // turn's snapshot first, and the read after the write must not come from that snapshot.
    const write = run(service, `update "user" set groups = 'grouped' where id = 1`);
    expect(await groupsOf(service)).toBe('member');
    await write;
    expect(await groupsOf(service)).toBe('grouped');

    expect(await groupsOf(service)).toBe('grouped');
    await service.transaction((tx) => tx.run({ sql: `update "user" set groups = 'in a transaction'`, parameters: [] }));
    expect(await groupsOf(service)).toBe('in a transaction');

    // Not groupable: a statement of its own on the writer, between transactions.
    expect(await groupsOf(service)).toBe('in a transaction');
    await service.all({ sql: `pragma user_version = 7`, parameters: [] });
    await run(service, `update "user" set groups = 'alone' where id = 1`);
    expect(await groupsOf(service)).toBe('alone');
  });

  it("see another connection's commit from the next turn, and at once once a table version saw it", async () => {
    const { service, behind } = await opened();
    const version = service.tableVersion!(['user']);
    void version();
    await nextTurn();

    expect(await groupsOf(service)).toBe('member');
    await run(behind, `update "user" set groups = 'admin' where id = 1`);
    await nextTurn();
    expect(await groupsOf(service)).toBe('admin');

    // In one turn: a read, another connection's commit, then the version authentication keys its
    // reads by. It moved, so the read after it is of the rows it stands for, never of before.
    expect(await groupsOf(service)).toBe('admin');
    const before = version();
    // A transaction commits within the turn (a grouped write would wait for its end).
    await behind.transaction((tx) => tx.run({ sql: `update "user" set groups = 'demoted'`, parameters: [] }));
    expect(version()).not.toBe(before);
    expect(await groupsOf(service)).toBe('demoted');
  });

  it('end with the turn: another connection can then empty the WAL at once', async () => {
    const { service, behind } = await opened();
    await run(behind, `update "user" set groups = 'written' where id = 1`);
    expect(await groupsOf(service)).toBe('written');
    await nextTurn();
    // A read transaction still open would make TRUNCATE wait for it (5 s) and report itself busy.
    const started = Date.now();
    const [result] = await behind.all<{ busy: number }>({ sql: 'pragma wal_checkpoint(TRUNCATE)', parameters: [] });
    expect(result?.busy).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("leave nothing to fail when the connection closed with the turn's transaction open", async () => {
    const db = new Database(':memory:');
    const snapshot = new TurnSnapshot(db as unknown as ConstructorParameters<typeof TurnSnapshot>[0]);
    snapshot.enter();
    expect(db.inTransaction).toBe(true);
    db.close();
    const errors: unknown[] = [];
    const record = (error: unknown) => errors.push(error);
    process.on('uncaughtException', record);
    try {
      // The end of the turn finds the connection closed: a COMMIT there would throw where nothing catches it.
      await nextTurn();
      await nextTurn();
    } finally {
      process.off('uncaughtException', record);
    }
    expect(errors).toEqual([]);
    expect(db.open).toBe(false);
  });
});
