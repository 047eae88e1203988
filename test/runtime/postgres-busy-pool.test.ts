/**
 * Every pooled PostgreSQL connection lent for longer than the connect timeout is the service's load,
 * not the database's absence: the statement that waited fails as DatabaseBusy, and the service
 * answers 503 "the service is busy", not "the database does not answer". A probe's 40 bulk
 * changes of huge rows at once had 28 answered that the database did not answer, while it did.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseBusy } from '../../runtime/src/lib/database.js';
import { errors } from '../../runtime/src/lib/http/error-handler.js';
import { openSql } from '../../runtime/src/lib/sql/executor.js';
import { testApp } from '../support/app.js';
import { repoRoot } from '../support/paths.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a PostgreSQL pool whose connections are all lent', () => {
  it('fails what waits past the connect timeout as busy, and serves again once they are given back', async () => {
    const database = await freshPostgresDatabase(repoRoot, 'busypool');
    const db = openSql(database.url, { timeouts: { connect: 300, query: 5000 } });
    cleanups.push(
      () => database.drop(),
      () => db.close(),
    );
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Ten transactions hold the pool's ten connections.
    const holding = Array.from({ length: 10 }, () =>
      db.transaction(async (tx) => {
        await tx.all({ sql: 'select 1 as one', parameters: [] });
        await held;
      }),
    );
    let waited: unknown;
    let inTransaction: unknown;
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      waited = await db.all({ sql: 'select 2 as two', parameters: [] }).catch((e: unknown) => e);
      inTransaction = await db
        .transaction((tx) => tx.all({ sql: 'select 3', parameters: [] }))
        .catch((e: unknown) => e);
    } finally {
      release();
      await Promise.all(holding);
    }
    expect(isDatabaseBusy(waited)).toBe(true);
    expect(isDatabaseBusy(inTransaction)).toBe(true);
    expect(await db.all({ sql: 'select 4 as four', parameters: [] })).toEqual([{ four: 4 }]);
  });

  it('is answered 503, the service busy, with Retry-After', async () => {
    const database = await freshPostgresDatabase(repoRoot, 'busyanswer');
    // A server that is there but takes no new connection in time: none can be made at all.
    const unreachable = openSql('postgres://postgres@127.0.0.1:1/none', { timeouts: { connect: 200, query: 1000 } });
    const db = openSql(database.url, { timeouts: { connect: 200, query: 5000 } });
    cleanups.push(
      () => database.drop(),
      () => db.close(),
      () => unreachable.close(),
    );
    const app = testApp();
    await app.register(errors);
    app.get('/busy', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holding = Array.from({ length: 10 }, () => db.transaction(() => held));
      await new Promise((resolve) => setTimeout(resolve, 100));
      try {
        return await db.all({ sql: 'select 1', parameters: [] });
      } finally {
        release();
        await Promise.all(holding);
      }
    });
    app.get('/down', () => unreachable.all({ sql: 'select 1', parameters: [] }));
    const busy = await app.inject({ method: 'GET', url: '/busy' });
    expect([busy.statusCode, busy.headers['retry-after'], busy.json().message]).toEqual([
      503,
      '1',
      'the service is busy (every database connection is in use); try again in a moment',
    ]);
    const down = await app.inject({ method: 'GET', url: '/down' });
    expect([down.statusCode, down.json().message]).toEqual([
      503,
      'the database does not answer; try again in a moment',
    ]);
    await app.close();
  });
});
