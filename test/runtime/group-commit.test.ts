/**
 * Group commit on SQLite (runtime/src/lib/sql/group-commit.ts): writes that arrive in one turn
 * share a transaction, yet each succeeds or fails alone, and whatever is answered as done is
 * committed — nothing more, nothing less.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Lock, openSql, type Compiled, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { GroupCommit } from '../../runtime/src/lib/sql/group-commit.js';

/** What the test uses of a better-sqlite3 connection. */
interface Connection {
  readonly open: boolean;
  prepare(sql: string): { all(): Array<Record<string, unknown>>; run(): unknown };
  exec(sql: string): void;
  pragma(pragma: string, options?: { simple: boolean }): unknown;
  close(): void;
}
// The runtime's own driver (runtime/node_modules): the repository's root does not depend on it.
const Database = createRequire(new URL('../../runtime/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
) => Connection;

let dir: string;
let file: string;
let db: SqlDatabase;
/** A connection of the test's own: what is committed, as another process would see it. */
let observer: Connection;

const insert = (name: string, size = 0): Compiled => ({
  sql: 'insert into note (name, body) values (?, ?)',
  parameters: [name, 'x'.repeat(size)],
});

function committedNames(): string[] {
  return observer
    .prepare('select name from note order by name')
    .all()
    .map((row) => String(row['name']));
}

/** Bytes of WAL written since the last truncating checkpoint: frames of every commit. */
function walBytes(): number {
  return statSync(`${file}-wal`).size;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svcgen-group-commit-'));
  file = join(dir, 'notes.db');
  db = openSql(`sqlite:${file}`);
  await db.execute('create table note (name text primary key, body text not null)');
  observer = new Database(file);
});

afterEach(async () => {
  observer.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite group commit', () => {
  it('commits the writes of one turn together: the WAL grows by one commit, not one per write', async () => {
    observer.pragma('wal_checkpoint(TRUNCATE)');
    for (let i = 0; i < 8; i++) await db.run(insert(`one-by-one ${i}`));
    const oneByOne = walBytes();
    observer.pragma('wal_checkpoint(TRUNCATE)');
    expect(walBytes()).toBe(0);
    await Promise.all(Array.from({ length: 8 }, (_, i) => db.run(insert(`together ${i}`))));
    const together = walBytes();
    // Eight commits write the table's page eight times; one commit writes it once.
    expect(together).toBeGreaterThan(0);
    expect(together * 4).toBeLessThanOrEqual(oneByOne);
    expect(committedNames()).toHaveLength(16);
  });

  it('fails a write alone: a duplicate key is refused, the others of its group are committed', async () => {
    const results = await Promise.allSettled([
      db.run(insert('a')),
      db.run(insert('b')),
      db.run(insert('a')),
      db.all({ sql: 'insert into note (name, body) values (?, ?) returning name', parameters: ['c', ''] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect((results[3] as PromiseFulfilledResult<unknown>).value).toEqual([{ name: 'c' }]);
    expect(committedNames()).toEqual(['a', 'b', 'c']);
  });

  it('undoes both statements of a write whose second fails, and only those', async () => {
    const results = await Promise.allSettled([
      db.allThen(insert('kept'), () => insert('kept, its event')),
      db.allThen(insert('undone'), () => insert('kept')),
      db.allThen(insert('also undone'), () => {
        throw new Error('the event could not be made');
      }),
      db.allThen(insert('kept too'), () => undefined),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(committedNames()).toEqual(['kept', 'kept too', 'kept, its event']);
  });

  it('waits for a transaction that holds the writer, and loses none of the writes queued meanwhile', async () => {
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.run(insert('in the transaction'));
      inside();
      await new Promise((resolve) => setTimeout(resolve, 30));
      await tx.run(insert('in the transaction, later'));
    });
    await started;
    const queued = Promise.all([db.run(insert('queued 1')), db.run(insert('queued 2'))]);
    await Promise.all([transaction, queued]);
    expect(committedNames()).toEqual(['in the transaction', 'in the transaction, later', 'queued 1', 'queued 2']);
  });

  it('answers done exactly the writes it committed, when the disk fills up in the middle of a group', async () => {
    // A database that cannot grow: the big write fails with SQLITE_FULL, which undoes the whole
    // transaction; the small ones, which fit, run again without it.
    observer.pragma('wal_checkpoint(TRUNCATE)');
    const pages = Number(observer.pragma('page_count', { simple: true }));
    await db.execute(`pragma max_page_count = ${pages + 2}`);
    const writes = [insert('small 1'), insert('big', 200_000), insert('small 2')];
    const results = await Promise.allSettled(writes.map((w) => db.run(w)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const answered = writes.filter((_, i) => results[i]!.status === 'fulfilled').map((w) => w.parameters[0]);
    expect(committedNames()).toEqual(answered);
  });

  it('fails alone a write that undoes the whole transaction (RAISE(ROLLBACK), OR ROLLBACK): the others run again', async () => {
    await db.execute(
      `create trigger refuse before insert on note when new.name = 'refused' begin select raise(rollback, 'refused'); end`,
    );
    const results = await Promise.allSettled([
      db.run(insert('first')),
      db.run(insert('refused')),
      db.run(insert('second')),
      db.run({ sql: 'insert or rollback into note (name, body) values (?, ?)', parameters: ['first', 'again'] }),
      db.allThen(insert('third'), () => insert('third, its event')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused' });
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(committedNames()).toEqual(['first', 'second', 'third', 'third, its event']);
  });

  it('fails alone a write that breaks a deferred foreign key, found only at COMMIT', async () => {
    await db.execute(
      'create table parent (id integer primary key); create table child (id integer primary key, parent integer references parent (id) deferrable initially deferred)',
    );
    const results = await Promise.allSettled([
      db.run({ sql: 'insert into parent (id) values (?)', parameters: [1] }),
      db.run({ sql: 'insert into child (id, parent) values (?, ?)', parameters: [10, 1] }),
      db.run({ sql: 'insert into child (id, parent) values (?, ?)', parameters: [11, 99] }),
      db.run(insert('unrelated')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(observer.prepare('select id from child').all()).toEqual([{ id: 10 }]);
    expect(committedNames()).toEqual(['unrelated']);
  });

  it('runs a statement that cannot share a transaction (VACUUM) alone, beside grouped writes', async () => {
    const results = await Promise.allSettled([
      db.run(insert('before')),
      db.run({ sql: 'vacuum', parameters: [] }),
      db.run(insert('after')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(committedNames()).toEqual(['after', 'before']);
  });

  it('makes a write asked for before a transaction first: the transaction sees it', async () => {
    const written = db.run(insert('asked first'));
    const seen = await db.transaction((tx) => tx.all({ sql: 'select name from note', parameters: [] }));
    expect(seen).toEqual([{ name: 'asked first' }]);
    await written;
  });

  it('closes the writer when even ROLLBACK fails, so that no later write joins the dead transaction', async () => {
    const real = new Database(file);
    real.exec(
      'create table parent (id integer primary key); create table child (id integer primary key, parent integer references parent (id) deferrable initially deferred)',
    );
    real.pragma('foreign_keys = ON');
    // The writer as GroupCommit sees it, but a ROLLBACK that fails (as an I/O error would make it).
    const writer = new Proxy(real, {
      get(target, key) {
        if (key === 'exec')
          return (sql: string) => {
            if (sql === 'ROLLBACK') throw new Error('disk I/O error (injected)');
            return target.exec(sql);
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const lock = new Lock();
    const groups = new GroupCommit(writer as unknown as ConstructorParameters<typeof GroupCommit>[0], () =>
      lock.acquire(),
    );
    const run = (sql: string) => {
      const statement = () => real.prepare(sql).run();
      return groups.write({ inGroup: statement, alone: statement });
    };
    // The deferred key fails the COMMIT; its ROLLBACK fails too.
    const results = await Promise.allSettled([
      run("insert into note (name, body) values ('in the group', '')"),
      run('insert into child (id, parent) values (1, 99)'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(real.open).toBe(false);
    await expect(run("insert into note (name, body) values ('later', '')")).rejects.toThrow(/not open/);
    expect(committedNames()).toEqual([]);
  });

  it('closes after the writes asked for before it, which are committed, not refused', async () => {
    const written = Promise.all([db.run(insert('last 1')), db.run(insert('last 2'))]);
    await db.close();
    expect(await written).toEqual([1, 1]);
    expect(committedNames()).toEqual(['last 1', 'last 2']);
    db = openSql(`sqlite:${file}`);
  });

  it('keeps what it answered and what it committed the same, whatever the mix of writes (property)', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('p', 'q', 'r', 's', 't', 'u'), { minLength: 1, maxLength: 20 }),
        async (names) => {
          const prefix = `${round++}-`;
          const results = await Promise.allSettled(names.map((name) => db.run(insert(prefix + name))));
          const answered = names.filter((_, i) => results[i]!.status === 'fulfilled').map((name) => prefix + name);
          // Each distinct name once, the first of its group to ask.
          expect(answered).toEqual([...new Set(names)].map((name) => prefix + name));
          expect(committedNames().filter((name) => name.startsWith(prefix))).toEqual([...answered].sort());
        },
      ),
      { numRuns: 40 },
    );
  });
});
