/**
 * Reads of one row by key outside transactions share one pipelined PostgreSQL connection
 * (runtime/src/lib/sql/pipelined-reads.ts): many at once each get their own row, those of one
 * turn in one write; one that fails fails alone; a lost connection fails what it carried as
 * "unavailable" and is replaced; one that cannot be made fails them with the server's reason, or
 * as unavailable; behind one that takes long they go to the pool; inside a transaction they stay
 * on the transaction's connection; they never wait for a row's lock; after close they fail,
 * nothing reopens.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../runtime/src/lib/database.js';
import { openSql, type Compiled, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { repoRoot } from '../support/paths.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ROWS = 200;
let databaseUrl = '';
const byKey = (id: unknown): Compiled => ({
  sql: 'select id, title from t where id = $1',
  parameters: [id],
  oneByKey: true,
});

async function opened(): Promise<{ db: SqlDatabase; other: SqlDatabase; name: string }> {
  const database = await freshPostgresDatabase(repoRoot, 'pipelined');
  databaseUrl = database.url;
  const db = openSql(database.url);
  // Another connection to look at the first one's from outside.
  const other = openSql(database.url);
  cleanups.push(
    () => database.drop(),
    () => other.close(),
    // Once: a test closes it itself.
    () => db.close().catch(() => undefined),
  );
  await other.execute(`create table t (id integer primary key, title text not null);
    insert into t select g, 'row ' || g from generate_series(1, ${ROWS}) g;`);
  const [row] = await other.all<{ name: string }>({ sql: 'select current_database() as name', parameters: [] });
  return { db, other, name: row!.name };
}

/** Counts the writes (system calls, one per `_write` or `_writev` of a socket) to `port` until stopped. */
function countedWrites(port: number): { count: number; stop(): void } {
  const prototype = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const original = { _write: prototype._write, _writev: prototype._writev };
  const counter = { count: 0, stop: () => Object.assign(prototype, original) };
  for (const method of ['_write', '_writev'] as const) {
    prototype[method] = function (this: net.Socket, ...args: unknown[]) {
      if (this.remotePort === port) counter.count++;
      return original[method].apply(this, args);
    };
  }
  return counter;
}

/** The backends connected to the database `name`, other than the one asking. */
async function backends(other: SqlDatabase, name: string): Promise<number> {
  const [row] = await other.all<{ n: number }>({
    sql: 'select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    parameters: [name],
  });
  return row!.n;
}

describe('reads of one row by key on PostgreSQL', () => {
  it('sent many at once, share one connection and each get their own row', async () => {
    const { db, other, name } = await opened();
    const ids = Array.from({ length: 1000 }, (_, i) => ((i * 37) % ROWS) + 1);
    const rows = await Promise.all(ids.map((id) => db.all<{ id: number; title: string }>(byKey(id))));
    expect(rows).toEqual(ids.map((id) => [{ id, title: `row ${id}` }]));
    // The pool would have opened up to ten connections for as many reads at once.
    expect(await backends(other, name)).toBe(1);
    // A read that is not by key takes the pool, as before.
    await Promise.all(
      ids.slice(0, 50).map((id) => db.all({ sql: 'select title from t where id = $1', parameters: [id] })),
    );
    expect(await backends(other, name)).toBeGreaterThan(1);
  });

  it('sent in one turn of the event loop, leave in one write', async () => {
    const { db } = await opened();
    expect(await db.all(byKey(1))).toHaveLength(1); // connected, and the statement prepared
    const writes = countedWrites(Number(new URL(databaseUrl).port));
    try {
      const reads = Array.from({ length: 100 }, (_, i) => db.all(byKey(i + 1)));
      expect(await Promise.all(reads)).toHaveLength(100);
    } finally {
      writes.stop();
    }
    // Without holding them, node-postgres writes each statement as it comes: 100 writes.
    expect(writes.count).toBe(1);
  });

  it('that fails, fails alone: the reads sent with it are answered', async () => {
    const { db } = await opened();
    const answers = await Promise.allSettled(
      [byKey(1), byKey('not a number'), byKey(3), byKey(-1)].map((q) => db.all(q)),
    );
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((answers[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22P02' });
    expect((answers[2] as PromiseFulfilledResult<unknown>).value).toEqual([{ id: 3, title: 'row 3' }]);
    expect((answers[3] as PromiseFulfilledResult<unknown>).value).toEqual([]);
  });

  it('on a connection that is lost, fail as unavailable, and the next ones reconnect', async () => {
    const { db, other, name } = await opened();
    expect(await db.all(byKey(5))).toEqual([{ id: 5, title: 'row 5' }]);
    // Reads on the wire behind a slow one (a test's misuse of the pipeline) while the server ends the connection.
    const slow = db
      .all({ sql: 'select pg_sleep(0.5) as slept', parameters: [], oneByKey: true })
      .catch((e: unknown) => e);
    const inFlight = Array.from({ length: 200 }, (_, i) => db.all(byKey((i % ROWS) + 1)).catch((e: unknown) => e));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.all({
      sql: 'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      parameters: [name],
    });
    expect(isDatabaseUnavailable(await slow)).toBe(true);
    const settled = await Promise.all(inFlight);
    expect(settled.every((error) => isDatabaseUnavailable(error))).toBe(true);
    expect(await db.all(byKey(7))).toEqual([{ id: 7, title: 'row 7' }]);
  });

  it('behind one that has taken 50 ms, go to the pool until it is answered', async () => {
    const { db } = await opened();
    expect(await db.all(byKey(1))).toHaveLength(1);
    // A read that takes long all the same (a test's misuse of the pipeline, as a locked table would make one).
    const slow = db.all({ sql: 'select pg_sleep(0.6) as slept', parameters: [], oneByKey: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    expect(await db.all(byKey(2))).toEqual([{ id: 2, title: 'row 2' }]);
    // On the pipelined connection it would have waited for the slow one: 500 ms more.
    expect(performance.now() - started).toBeLessThan(300);
    await slow;
    expect(await db.all(byKey(3))).toEqual([{ id: 3, title: 'row 3' }]);
  });

  it('inside a transaction are on its connection: they see what it has not committed', async () => {
    const { db } = await opened();
    const seen = await db.transaction(async (tx) => {
      await tx.run({ sql: `update t set title = 'changed' where id = 9`, parameters: [] });
      return tx.all(byKey(9));
    });
    expect(seen).toEqual([{ id: 9, title: 'changed' }]);
    expect(await db.all(byKey(9))).toEqual([{ id: 9, title: 'changed' }]);
  });

  it('never wait behind a transaction that holds the row', async () => {
    const { db, other } = await opened();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = other.transaction(async (tx) => {
      await tx.run({ sql: `update t set title = 'locked' where id = 11`, parameters: [] });
      await held;
    });
    // Read while the other transaction holds the row's lock: the committed row, at once.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await db.all(byKey(11))).toEqual([{ id: 11, title: 'row 11' }]);
    release();
    await holding;
    expect(await db.all(byKey(11))).toEqual([{ id: 11, title: 'locked' }]);
  });

  it('after close, fail as unavailable and open nothing', async () => {
    const { db, other, name } = await opened();
    expect(await db.all(byKey(1))).toHaveLength(1);
    await db.close();
    const error = await db.all(byKey(1)).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    // A closed connection's server process ends a moment after the client hangs up (CI once saw it
    // still listed): wait up to 2 s for it to go; one the read had opened again would stay.
    let count = await backends(other, name);
    for (let waited = 0; count > 0 && waited < 2_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      count = await backends(other, name);
    }
    expect(count).toBe(0);
  });

  it('that cannot connect, fail with the reason the pool gives', async () => {
    const { name } = await opened();
    const url = new URL(databaseUrl);
    url.pathname = `/${name}_not_there`;
    const db = openSql(url.href);
    cleanups.push(() => db.close());
    const errors = await Promise.all([byKey(1), byKey(2)].map((q) => db.all(q).catch((e: unknown) => e)));
    const fromPool = await db.all({ sql: 'select 1 as one', parameters: [] }).catch((e: unknown) => e);
    expect(fromPool).toMatchObject({ code: '3D000' });
    for (const error of errors) expect(error).toMatchObject({ code: '3D000' });
  });

  it('to a server that never answers, fail as unavailable once the connect timeout is over', async () => {
    // Reads what it is sent (so that it sees the client leave), answers nothing.
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    const port = (silent.address() as net.AddressInfo).port;
    const db = openSql(`postgres://postgres@127.0.0.1:${port}/none`, { timeouts: { connect: 200, query: 1000 } });
    cleanups.push(() => db.close());
    const started = Date.now();
    const error = await db.all(byKey(1)).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('to a server that is not there, fail as unavailable', async () => {
    const db = openSql('postgres://postgres@127.0.0.1:1/none');
    cleanups.push(() => db.close());
    const errors = await Promise.all([1, 2, 3].map((id) => db.all(byKey(id)).catch((e: unknown) => e)));
    for (const error of errors) expect(isDatabaseUnavailable(error)).toBe(true);
  });
});
