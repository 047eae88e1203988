/**
 * The PostgreSQL executor of a generated project (dist/lib/sql/executor.js), on the test cluster:
 * how a transaction that does not end as planned leaves its pooled connection. A connection lent
 * again while still inside a transaction would take its next user's autocommit writes into that
 * transaction: answered as written, seen by nobody else, undone when the connection closes (to
 * the SIGKILL test, acknowledged writes gone). And a COMMIT that PostgreSQL answers with ROLLBACK
 * saved nothing, so it must not resolve as if it had.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { builtProject } from '../support/project.js';

interface Compiled {
  sql: string;
  parameters: unknown[];
}
interface SqlExecutor {
  all<R = Record<string, unknown>>(query: Compiled): Promise<R[]>;
  run(query: Compiled): Promise<number>;
  execute(script: string): Promise<void>;
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}
interface SqlDatabase extends SqlExecutor {
  close(): Promise<void>;
}
type Query = (config: unknown, ...rest: unknown[]) => unknown;
interface Pg {
  Client: { prototype: { query: Query } } & (new (options: { connectionString: string }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
    end(): Promise<void>;
  });
}

let dir: string;
let database: TestDatabase;
let openSql: (url: string) => SqlDatabase;
let pg: Pg;
let db: SqlDatabase;

const insert = (name: string): Compiled => ({ sql: 'insert into note (name) values ($1)', parameters: [name] });

/** The names in `note` as a connection of its own sees them: what is committed. */
async function committedNames(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query('select name from note order by name')).rows.map((r) => String(r['name']));
  } finally {
    await client.end();
  }
}

/**
 * Makes the next ROLLBACK that any connection is asked for fail without being sent, the
 * connection staying up: what a ROLLBACK lost on the client's side looks like to the executor.
 */
function failNextRollback(): void {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    if (config !== 'ROLLBACK') return query.call(this, config, ...rest);
    pg.Client.prototype.query = query;
    return Promise.reject(new Error('ROLLBACK failed (injected)'));
  };
}

beforeAll(async () => {
  dir = await builtProject('ramses-starter', 'e2e-sql-executor');
  ({ openSql } = (await import(pathToFileURL(join(dir, 'dist/lib/sql/executor.js')).href)) as {
    openSql: typeof openSql;
  });
  pg = createRequire(join(dir, 'node_modules', 'noop.js'))('pg') as Pg;
  database = await testDatabase('postgres', dir, 'sql_executor');
  db = openSql(database.url);
  await db.execute('create table note (name varchar(40) primary key)');
}, 600_000);

afterEach(async () => {
  await db.run({ sql: 'delete from note', parameters: [] });
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe('the PostgreSQL executor', () => {
  it('never lends again a connection whose ROLLBACK failed: the next write is committed, not swallowed', async () => {
    failNextRollback();
    await expect(
      db.transaction(async (tx) => {
        await tx.run(insert('undone'));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    // The pool lends the connection given back last first: the one whose ROLLBACK failed, were it kept.
    for (const name of ['after-1', 'after-2']) expect(await db.run(insert(name))).toBe(1);
    expect(await committedNames()).toEqual(['after-1', 'after-2']);
  });

  it('rejects a transaction whose COMMIT PostgreSQL answered with ROLLBACK (a failed statement was caught)', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.run(insert('kept?'));
        // A duplicate key: PostgreSQL aborts the whole transaction, whatever the caller does with the error.
        await tx.run(insert('kept?')).catch(() => undefined);
        return 'saved';
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await committedNames()).toEqual([]);
    // The connection is outside any transaction again: it serves the next write.
    expect(await db.run(insert('next'))).toBe(1);
    expect(await committedNames()).toEqual(['next']);
  });

  it('reads json and jsonb as their text, which values.ts parses: a JSON string stays a string', async () => {
    // Parsed by the driver, the string "123" would be given as 123 to parse again: 123, a number.
    await db.execute(`create table doc (n int primary key, j jsonb, t json)`);
    await db.run({
      sql: 'insert into doc values (1, $1, $2), (2, $3, $4)',
      parameters: ['"123"', '"abc"', '{"a": [1]}', null],
    });
    const rows = await db.all<{ n: number; j: unknown; t: unknown }>({
      sql: 'select n, j, t from doc order by n',
      parameters: [],
    });
    expect(rows).toEqual([
      { n: 1, j: '"123"', t: '"abc"' },
      { n: 2, j: '{"a": [1]}', t: null },
    ]);
    const { fromDb } = (await import(pathToFileURL(join(dir, 'dist/lib/values.js')).href)) as {
      fromDb: (value: unknown, field: { storage: string; type: string }) => unknown;
    };
    const pickle = { storage: 'json', type: 'pickle' };
    expect(rows.map((r) => fromDb(r.j, pickle))).toEqual(['123', { a: [1] }]);
    expect(fromDb(rows[0]!.t, pickle)).toBe('abc');
  });
});
