/**
 * SQLite's rows made objects in JavaScript (runtime/src/lib/sql/sqlite-rows.ts), through the
 * executor: the same objects better-sqlite3 made (names, values, a repeated name's last value),
 * any column name kept a plain property, never code or a prototype, and a table changed behind
 * the service's back never answering a value under another column's name (a `select *` included:
 * its rows stay better-sqlite3's). Another connection's change is read from the next turn of the
 * event loop: the reads of one turn share a read transaction (turn-snapshot.ts).
 */
import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { testDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';

/** What the test uses of a better-sqlite3 connection. */
interface Connection {
  prepare(sql: string): { all(): unknown[] };
  exec(sql: string): void;
  close(): void;
}
// The runtime's own driver (runtime/node_modules): the repository's root does not depend on it.
const Database = createRequire(new URL('../../runtime/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
  options?: { readonly: boolean },
) => Connection;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function opened(): Promise<{ db: SqlDatabase; file: string }> {
  const database = await testDatabase('sqlite', repoRoot, 'sqlite_rows');
  const db = openSql(database.url);
  cleanups.push(
    () => database.drop(),
    () => db.close(),
  );
  return { db, file: database.url.slice('sqlite:'.length) };
}

const read = (db: SqlDatabase, sql: string, parameters: unknown[] = []) =>
  db.all<Record<string, unknown>>({ sql, parameters });

describe('rows read on SQLite', () => {
  it('are the objects better-sqlite3 makes: names, values, types, a repeated name keeps its last value', async () => {
    const { db, file } = await opened();
    await db.execute(`create table t (id integer primary key, name text, score real, data blob, "a b" text);
      insert into t values (1, 'one', 1.5, x'00ff', 'spaced'), (2, null, null, null, null);`);
    const sql = 'select id, name, score, data, "a b", name as id, 7 as "7" from t order by t.id';
    const rows = await read(db, sql);
    const direct = new Database(file, { readonly: true });
    cleanups.push(() => direct.close());
    expect(rows).toEqual(direct.prepare(sql).all());
    expect(rows[0]).toEqual({ id: 'one', name: 'one', score: 1.5, data: Buffer.from([0, 255]), 'a b': 'spaced', 7: 7 });
    expect(Object.keys(rows[0]!)).toEqual(['7', 'id', 'name', 'score', 'data', 'a b']);
    // Each read makes new objects: a caller that changes one changes nothing another reads.
    rows[0]!['name'] = 'changed';
    expect((await read(db, sql))[0]!['name']).toBe('one');
  });

  it('keep any column name a property, never code or the prototype', async () => {
    const { db } = await opened();
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12, unit: 'binary' }), async (name) => {
        fc.pre(!name.includes('\0'));
        const quoted = `"${name.replaceAll('"', '""')}"`;
        const [row] = await read(db, `select 1 as ${quoted}, 2 as "__proto__"`);
        expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
        expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(2);
        if (name !== '__proto__') expect(Object.getOwnPropertyDescriptor(row, name)?.value).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it('never answer a value under another column after the table is changed behind the service', async () => {
    const { db, file } = await opened();
    await db.execute(`create table t (id integer primary key, secret text, title text);
      insert into t values (1, 'hidden', 'shown');`);
    const sql = 'select id, title from t where id = ?';
    expect(await read(db, sql, [1])).toEqual([{ id: 1, title: 'shown' }]);
    const behind = new Database(file);
    cleanups.push(() => behind.close());
    // Columns dropped and the table made again with its columns in another order.
    behind.exec(`create table t2 (title text, id integer primary key, extra text);
      insert into t2 (title, id, extra) select title, id, secret from t;
      drop table t; alter table t2 rename to t;`);
    await nextTurn();
    expect(await read(db, sql, [1])).toEqual([{ id: 1, title: 'shown' }]);
    behind.exec('alter table t drop column title');
    await nextTurn();
    await expect(read(db, sql, [1])).rejects.toThrow(/no such column: title/);
  });

  it('of a `select *` are the table as it is now, after a change behind the service', async () => {
    const { db, file } = await opened();
    await db.execute(`create table t (id integer primary key, secret text, title text);
      insert into t values (1, 'hidden', 'shown');`);
    const star = 'select * from t where id = ?';
    expect(await read(db, star, [1])).toEqual([{ id: 1, secret: 'hidden', title: 'shown' }]);
    const behind = new Database(file);
    cleanups.push(() => behind.close());
    behind.exec(`create table t2 (title text, id integer primary key);
      insert into t2 (title, id) select title, id from t;
      drop table t; alter table t2 rename to t;`);
    await nextTurn();
    // Prepared again by SQLite with the table's columns now: no value under a name it no longer has.
    const [row] = await read(db, star, [1]);
    expect(row).toEqual({ title: 'shown', id: 1 });
    expect(Object.keys(row!)).toEqual(['title', 'id']);
  });
});
