/**
 * The kept numbers of rows (runtime/src/lib/sql/row-counts.ts) on SQLite and PostgreSQL, on
 * tables of their own: what the start-up check does after a rename and when a new table takes an
 * old name, and on PostgreSQL that writers never wait for each other on a count: two
 * transactions writing two tables in opposite orders both commit (a counter row per table would
 * deadlock them), and writes from several connections while the changes are folded add up; on
 * SQLite that the check waits for another connection's write lock as migrations do.
 * test/e2e/row-counts.e2e.test.ts checks the counts of a generated service over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRegistry } from '../../runtime/src/lib/model.js';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { keepRowCounts, type RowCounts } from '../../runtime/src/lib/sql/row-counts.js';
import { testDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';

/** keepRowCounts reads only the tables of the models. */
const models = (...tables: string[]) => new Map(tables.map((t) => [t, { table: t }])) as unknown as ModelRegistry;

interface Opened {
  readonly db: SqlDatabase;
  readonly another: () => SqlDatabase;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(engine: 'sqlite' | 'postgres'): Promise<Opened> {
  const database = await testDatabase(engine, repoRoot, 'row_counts');
  const { url } = database;
  cleanups.push(() => database.drop());
  const another = () => {
    const db = openSql(url);
    cleanups.push(() => db.close());
    return db;
  };
  return { db: another(), another };
}

async function countOf(db: SqlDatabase, counts: RowCounts, table: string): Promise<number> {
  const [row] = await db.all<{ n: unknown }>(counts.countOf(table)!);
  return Number(row?.n);
}

const insert = (db: SqlDatabase, table: string, n: number) =>
  db.execute(Array.from({ length: n }, () => `insert into ${table} (note) values ('x');`).join('\n'));

/** A promise and what settles it. */
function signal(): { promise: Promise<void>; done: () => void } {
  let done!: () => void;
  const promise = new Promise<void>((resolve) => (done = resolve));
  return { promise, done };
}

const KEY = { sqlite: 'integer primary key autoincrement', postgres: 'serial primary key' };

describe.each(['sqlite', 'postgres'] as const)('kept row counts on %s', (engine) => {
  const create = (db: SqlDatabase, table: string) => db.execute(`create table ${table} (id ${KEY[engine]}, note text)`);

  /** Two items, and a third inserted by another connection whose transaction holds the table until `released`. */
  async function heldItems() {
    const { db, another } = await open(engine);
    await create(db, 'item');
    await insert(db, 'item', 2);
    const [locked, released] = [signal(), signal()];
    const held = another().transaction(async (tx) => {
      await insert(tx as SqlDatabase, 'item', 1);
      locked.done();
      await released.promise;
    });
    await locked.promise;
    return { db, released, held };
  }

  it('counts a renamed table under its new name, and a new table that took the old name from zero', async () => {
    const { db } = await open(engine);
    await create(db, 'item');
    await insert(db, 'item', 3);
    let counts = await keepRowCounts(db, models('item'));
    await insert(db, 'item', 2);
    expect(await countOf(db, counts, 'item')).toBe(5);

    await db.execute('alter table item rename to thing');
    await create(db, 'item');
    counts = await keepRowCounts(db, models('item', 'thing'));
    expect([await countOf(db, counts, 'thing'), await countOf(db, counts, 'item')]).toEqual([5, 0]);
    if (engine === 'sqlite') {
      // The renamed table's triggers were the old name's: they are made again under the new one.
      const triggers = await db.all<{ name: string }>({
        sql: "select name from sqlite_master where type = 'trigger' order by name",
        parameters: [],
      });
      expect(triggers.map((t) => t.name)).toEqual([
        'svc_count_item_delete',
        'svc_count_item_insert',
        'svc_count_thing_delete',
        'svc_count_thing_insert',
      ]);
    }
    // The renamed table's rows are not counted as the new table's (its old triggers are gone).
    await insert(db, 'thing', 4);
    await insert(db, 'item', 1);
    await db.execute('delete from thing where id = 1');
    expect([await countOf(db, counts, 'thing'), await countOf(db, counts, 'item')]).toEqual([8, 1]);
    await counts.close();
  });

  it('forgets the counts of tables the models no longer have, and counts them again when they return', async () => {
    const { db } = await open(engine);
    await create(db, 'gone');
    await create(db, 'other');
    await keepRowCounts(db, models('gone', 'other'));
    await insert(db, 'gone', 2);
    // A version of the service without the model: its writes behind it may go uncounted.
    await keepRowCounts(db, models('other'));
    if (engine === 'sqlite') {
      // Its triggers go: a trigger counting under a name that is no model's would count for nothing.
      const triggers = await db.all<{ name: string }>({
        sql: "select name from sqlite_master where type = 'trigger' and name like 'svc_count_gone%'",
        parameters: [],
      });
      expect(triggers).toEqual([]);
    }
    await insert(db, 'gone', 1);
    const counts = await keepRowCounts(db, models('gone', 'other'));
    expect(await countOf(db, counts, 'gone')).toBe(3);
    await counts.close();
  });

  it.runIf(engine === 'postgres')(
    'lets two transactions write two tables in opposite orders at the same time',
    async () => {
      const { db, another } = await open(engine);
      await create(db, 'a');
      await create(db, 'b');
      const counts = await keepRowCounts(db, models('a', 'b'));
      const other = another();
      // The executor runs a transaction that lost a deadlock again: each must have run once.
      const runs = [0, 0];
      const wrote = [signal(), signal()] as const;
      // Each writes its first table, waits until the other has too, then writes the other table.
      const writes = (on: SqlDatabase, me: 0 | 1, [mine, theirs]: [string, string]) =>
        on.transaction(async (tx) => {
          runs[me]!++;
          await insert(tx as SqlDatabase, mine, 1);
          wrote[me].done();
          await wrote[1 - me]!.promise;
          await insert(tx as SqlDatabase, theirs, 1);
        });
      await Promise.all([writes(db, 0, ['a', 'b']), writes(other, 1, ['b', 'a'])]);
      expect(runs).toEqual([1, 1]);
      expect([await countOf(db, counts, 'a'), await countOf(db, counts, 'b')]).toEqual([2, 2]);
      await counts.close();
    },
  );

  it.runIf(engine === 'postgres')(
    'gives up with a clear error when another transaction holds a table it must count, and counts it later',
    async () => {
      const { db, released, held } = await heldItems();
      await expect(keepRowCounts(db, models('item'))).rejects.toThrow(
        /counting the rows of table item waited more than 10s for it: another transaction holds it/,
      );
      released.done();
      await held;
      const counts = await keepRowCounts(db, models('item'));
      expect(await countOf(db, counts, 'item')).toBe(3);
      await counts.close();
    },
    30_000,
  );

  it.runIf(engine === 'sqlite')(
    'waits, as migrations do, for another connection that holds the write lock past the busy timeout',
    async () => {
      const { db, released, held } = await heldItems();
      // Let go in a second: after the check's first try has waited out the busy timeout (5 s),
      // during which SQLite blocks this thread; it fails with SQLITE_BUSY unless tried again.
      setTimeout(released.done, 1000);
      const counts = await keepRowCounts(db, models('item'));
      await held;
      expect(await countOf(db, counts, 'item')).toBe(3);
      await counts.close();
    },
    30_000,
  );

  it.runIf(engine === 'postgres')('adds up writes from several connections while the changes are folded', async () => {
    const { db, another } = await open(engine);
    await create(db, 'item');
    const counts = await keepRowCounts(db, models('item'));
    const writers = Array.from({ length: 4 }, another);
    let folding = true;
    const folds = (async () => {
      while (folding) await counts.fold();
    })();
    await Promise.all(
      writers.map(async (w, i) => {
        for (let round = 0; round < 25; round++) {
          await insert(w, 'item', 3);
          if ((round + i) % 3 === 0) await w.execute(`delete from item where id in (select id from item limit 1)`);
        }
      }),
    );
    folding = false;
    await folds;
    const [{ n }] = (await db.all<{ n: string }>({ sql: 'select count(*) as n from item', parameters: [] })) as [
      { n: string },
    ];
    expect(await countOf(db, counts, 'item')).toBe(Number(n));
    await counts.fold();
    expect(await countOf(db, counts, 'item')).toBe(Number(n));
    await counts.close();
  });
});
