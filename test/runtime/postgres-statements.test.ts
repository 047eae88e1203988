/**
 * How the executor sends statements to PostgreSQL (runtime/src/lib/sql/executor.ts, `sentQuery`):
 * as node-postgres queries made of their text, the prepared statement's name set after. A named
 * statement is prepared on its connection under that name and its values bound; a full-text match
 * runs unnamed; a statement that fails gives its error to the function that awaited it, with a stack
 * that leads back to it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { repoRoot } from '../support/paths.js';
import { freshPostgresDatabase } from '../support/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function opened(): Promise<SqlDatabase> {
  const database = await freshPostgresDatabase(repoRoot, 'statements');
  const db = openSql(database.url);
  cleanups.push(
    () => database.drop(),
    () => db.close(),
  );
  await db.execute(`create table t (id integer primary key, title text not null);
    insert into t values (1, 'one'), (2, 'two');`);
  return db;
}

describe('statements sent to PostgreSQL', () => {
  it('are prepared under their name on their connection, with their values bound', async () => {
    const db = await opened();
    const byKey = 'select title from t where id = $1';
    const search = `select title from t where to_tsvector('simple', title) @@ to_tsquery('simple', $1)`;
    const prepared = await db.transaction(async (tx) => {
      expect(await tx.all({ sql: byKey, parameters: [2] })).toEqual([{ title: 'two' }]);
      expect(await tx.all({ sql: byKey, parameters: [1] })).toEqual([{ title: 'one' }]);
      expect(await tx.all({ sql: search, parameters: ['two'] })).toEqual([{ title: 'two' }]);
      return tx.all<{ name: string; statement: string }>({
        sql: 'select name, statement from pg_prepared_statements order by name',
        parameters: [],
      });
    });
    expect(prepared.map((p) => p.statement)).toContain(byKey);
    expect(prepared.find((p) => p.statement === byKey)?.name).toMatch(/^s\d+$/);
    expect(prepared.map((p) => p.statement)).not.toContain(search);
  });

  it('that fail give their error to the caller, with a stack that leads back to it', async () => {
    const db = await opened();
    async function readsTheMissingTable() {
      const rows = await db.all({ sql: 'select id from no_such_table where id = $1', parameters: [1] });
      return rows;
    }
    const error = (await readsTheMissingTable().catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('42P01');
    expect(error.stack).toContain('readsTheMissingTable');
    // In a transaction too, and the transaction is undone.
    const inTransaction = (await db
      .transaction(async (tx) => {
        await tx.run({ sql: `insert into t values (3, 'three')`, parameters: [] });
        await tx.all({ sql: 'select id from t where id = $1', parameters: ['not a number'] });
      })
      .catch((e: unknown) => e)) as Error & { code?: string };
    expect(inTransaction.code).toBe('22P02');
    expect(await db.all({ sql: 'select id from t order by id', parameters: [] })).toEqual([{ id: 1 }, { id: 2 }]);
  });
});
