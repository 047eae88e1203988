/**
 * The webhook delivery stores (runtime/src/lib/webhooks/sql-store.ts and mongo-store.ts): the
 * same cases on SQLite, PostgreSQL and MongoDB, with events written straight into `svc_events`
 * (on PostgreSQL with their seq given, as the sequencer would have). Then, on PostgreSQL and
 * MongoDB, two stores on connections of their own, as two instances: a delivery is leased by one
 * of them at a time, and fanning out at once makes each delivery exactly once.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CURSORS, outboxSchema } from '../../runtime/src/lib/outbox/schema.js';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';
import { ensureMongoOutbox, MongoDeliveryStore } from '../../runtime/src/lib/webhooks/mongo-store.js';
import { SqlDeliveryStore } from '../../runtime/src/lib/webhooks/sql-store.js';
import type { Delivery, DeliveryStore } from '../../runtime/src/lib/webhooks/types.js';
import { testDatabase } from '../support/databases.js';
import { freshMongoDatabase } from '../support/mongodb.js';
import { repoRoot } from '../support/paths.js';
import { freshPostgresDatabase } from '../support/postgres.js';

interface TestEvent {
  readonly seq: number;
  readonly type: string;
  readonly pk: string;
}

/** One database with the outbox's tables, and what the cases do to it behind the store's back. */
interface Backend {
  readonly store: DeliveryStore;
  addEvents(events: readonly TestEvent[]): Promise<void>;
  cursor(subscription: string): Promise<number | undefined>;
  setCursor(subscription: string, seq: number): Promise<void>;
  clear(): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL: appends an event the sequencer has not numbered yet, and numbers it. */
  unsequenced?: { add(event: Omit<TestEvent, 'seq'>): Promise<void>; number(seq: number): Promise<void> };
  /** Another store on connections of its own (another instance), closed with the backend. */
  another?(): Promise<DeliveryStore>;
}

const ALL = () => true;
/** Later than any `next_at` a fan-out in these tests gives (it takes the clock's now). */
const later = () => Date.now() + 3_600_000;
const seqs = (deliveries: readonly Delivery[]) => deliveries.map((d) => d.seq);
const events = (...specs: [number, string, string][]): TestEvent[] =>
  specs.map(([seq, type, pk]) => ({ seq, type, pk }));

// --- the databases --------------------------------------------------------------------------------

async function sqlBackend(open: () => Promise<{ url: string; drop(): Promise<void> }>): Promise<Backend> {
  const database = await open();
  const sql = openSql(database.url);
  await sql.execute(outboxSchema(sql.dialect));
  const p: (n: number) => string = sql.dialect === 'sqlite' ? () => '?' : (n) => `$${n}`;
  const others: SqlDatabase[] = [];
  return {
    store: new SqlDeliveryStore(sql),
    async addEvents(list) {
      for (const e of list) {
        await sql.run({
          sql: `insert into svc_events (seq, id, type, model, pk, time, data) values (${[1, 2, 3, 4, 5, 6, 7].map(p).join(', ')})`,
          parameters: [e.seq, randomUUID(), e.type, e.type.split('.')[0], e.pk, new Date().toISOString(), '{}'],
        });
      }
    },
    async cursor(subscription) {
      const [row] = await sql.all<{ seq: unknown }>({
        sql: `select seq from ${CURSORS} where subscription = ${p(1)}`,
        parameters: [subscription],
      });
      return row ? Number(row.seq) : undefined;
    },
    async setCursor(subscription, seq) {
      await sql.run({
        sql: `update ${CURSORS} set seq = ${p(1)} where subscription = ${p(2)}`,
        parameters: [seq, subscription],
      });
    },
    clear: () => sql.execute('delete from svc_events; delete from svc_deliveries; delete from svc_webhook_cursors;'),
    ...(sql.dialect === 'postgres' ? postgresParts(sql, database.url, others) : {}),
    async close() {
      for (const other of others) await other.close();
      await sql.close();
      await database.drop();
    },
  };
}

/** PostgreSQL's events not numbered yet, and other instances (on pools of their own, kept in `others`). */
function postgresParts(sql: SqlDatabase, url: string, others: SqlDatabase[]): Pick<Backend, 'unsequenced' | 'another'> {
  return {
    unsequenced: {
      async add(e) {
        await sql.run({
          sql: `insert into svc_events (id, type, model, pk, time, data) values ($1, $2, $3, $4, $5, '{}')`,
          parameters: [randomUUID(), e.type, e.type.split('.')[0], e.pk, new Date().toISOString()],
        });
      },
      async number(seq) {
        await sql.run({ sql: 'update svc_events set seq = $1 where seq is null', parameters: [seq] });
      },
    },
    another() {
      const other = openSql(url);
      others.push(other);
      return Promise.resolve(new SqlDeliveryStore(other));
    },
  };
}

function sqliteFile(): Promise<{ url: string; drop(): Promise<void> }> {
  return testDatabase('sqlite', repoRoot, 'deliveries');
}

async function mongoBackend(): Promise<Backend> {
  const database = await freshMongoDatabase('deliveries');
  const clients: MongoClient[] = [];
  const connect = async () => {
    const client = await new MongoClient(database.url).connect();
    clients.push(client);
    await ensureMongoOutbox(client.db());
    return new MongoDeliveryStore(client.db());
  };
  const store = await connect();
  const db = clients[0]!.db();
  const cursors = db.collection<{ _id: string; seq: number }>(CURSORS);
  return {
    store,
    async addEvents(list) {
      await db.collection<{ _id: number }>('svc_events').insertMany(
        list.map((e) => ({
          _id: e.seq,
          id: randomUUID(),
          type: e.type,
          model: e.type.split('.')[0],
          pk: e.pk,
          time: new Date().toISOString(),
          data: {},
        })),
      );
    },
    cursor: async (subscription) => (await cursors.findOne({ _id: subscription }))?.seq,
    async setCursor(subscription, seq) {
      await cursors.updateOne({ _id: subscription }, { $set: { seq } });
    },
    async clear() {
      for (const name of ['svc_events', 'svc_deliveries', CURSORS]) await db.collection(name).deleteMany({});
    },
    another: connect,
    async close() {
      await database.drop();
      for (const client of clients) await client.close();
    },
  };
}

const BACKENDS: [string, () => Promise<Backend>][] = [
  ['SQLite', () => sqlBackend(sqliteFile)],
  ['PostgreSQL', () => sqlBackend(() => freshPostgresDatabase(join(repoRoot, 'runtime'), 'deliveries'))],
  ['MongoDB', mongoBackend],
];

// --- the cases ------------------------------------------------------------------------------------

describe.each(BACKENDS)('delivery store on %s', (_, open) => {
  let backend: Backend;
  let store: DeliveryStore;

  beforeAll(async () => {
    backend = await open();
    store = backend.store;
  });
  afterAll(() => backend?.close());
  beforeEach(() => backend.clear());

  /** A subscription that gets the events added from now on. */
  const subscribe = async (name = 'hook') => void (await store.fanOut(name, ALL, 100));

  /** Deliveries of `list` for `hook`, made by one fan-out. */
  const fannedOut = async (list: readonly TestEvent[]) => {
    await subscribe();
    await backend.addEvents(list);
    return store.fanOut('hook', ALL, 1000);
  };

  it('makes deliveries of the matching events only, and moves past the others', async () => {
    await subscribe();
    await backend.addEvents(
      events([1, 'Story.create', 'a'], [2, 'User.create', 'b'], [3, 'Story.update', 'a'], [4, 'User.delete', 'c']),
    );
    const stories = (type: string) => type.startsWith('Story.');
    expect(await store.fanOut('hook', stories, 2)).toBe(1);
    expect(await backend.cursor('hook')).toBe(2);
    expect(await store.fanOut('hook', stories, 10)).toBe(1);
    expect(await backend.cursor('hook')).toBe(4);
    expect(await store.fanOut('hook', stories, 10)).toBe(0);
    const made = await store.list('hook', undefined, { limit: 10 });
    expect(made.map((d) => [d.seq, d.type, d.object, d.status, d.attempts])).toEqual([
      [1, 'Story.create', 'Story:a', 'pending', 0],
      [3, 'Story.update', 'Story:a', 'pending', 0],
    ]);
    expect(made[0]!.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(made[0]!.nextAt).toBeLessThanOrEqual(Date.now());
  });

  it('fans out an event on PostgreSQL once the sequencer has numbered it', async (context) => {
    if (!backend.unsequenced) return context.skip();
    await subscribe();
    await backend.addEvents(events([1, 'Story.create', 'a']));
    await backend.unsequenced.add({ type: 'Story.update', pk: 'a' });
    expect(await store.fanOut('hook', ALL, 10)).toBe(1);
    expect(await backend.cursor('hook')).toBe(1);
    await backend.unsequenced.number(2);
    expect(await store.fanOut('hook', ALL, 10)).toBe(1);
    expect(seqs(await store.list('hook', undefined, { limit: 10 }))).toEqual([1, 2]);
  });

  it('starts a new subscription at the latest event', async () => {
    await backend.addEvents(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b']));
    expect(await store.fanOut('late', ALL, 10)).toBe(0);
    expect(await backend.cursor('late')).toBe(2);
    await backend.addEvents(events([3, 'Story.create', 'c']));
    expect(await store.fanOut('late', ALL, 10)).toBe(1);
    expect(seqs(await store.list('late', undefined, { limit: 10 }))).toEqual([3]);
  });

  it('makes each delivery once when the same events are fanned out again', async () => {
    expect(await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b']))).toBe(2);
    await store.delivered('hook', [1], later(), 200);
    await backend.setCursor('hook', 0);
    expect(await store.fanOut('hook', ALL, 10)).toBe(0);
    const made = await store.list('hook', undefined, { limit: 10 });
    expect(made.map((d) => [d.seq, d.status])).toEqual([
      [1, 'delivered'],
      [2, 'pending'],
    ]);
  });

  it('leases the first pending delivery of each object only', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.update', 'a']));
    const now = later();
    expect(seqs(await store.claim('hook', 'one', now, 60_000, 10))).toEqual([1, 2]);
    // 1 and 2 are leased; 3 waits for 1, leased or not.
    expect(await store.claim('hook', 'two', now + 1, 60_000, 10)).toEqual([]);
    await store.delivered('hook', [1], now + 2, 200);
    expect(seqs(await store.claim('hook', 'two', now + 3, 60_000, 10))).toEqual([3]);
  });

  it('claims up to the limit, lowest seq first', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.create', 'c']));
    const now = later();
    expect(seqs(await store.claim('hook', 'one', now, 60_000, 2))).toEqual([1, 2]);
    expect(seqs(await store.claim('hook', 'one', now, 60_000, 2))).toEqual([3]);
  });

  it('claims a leased delivery again only once its lease has ended', async () => {
    await fannedOut(events([1, 'Story.create', 'a']));
    const now = later();
    expect(seqs(await store.claim('hook', 'one', now, 1000, 10))).toEqual([1]);
    expect(await store.claim('hook', 'two', now + 999, 1000, 10)).toEqual([]);
    expect(await store.claim('hook', 'two', now + 1000, 1000, 10)).toEqual([]);
    expect(seqs(await store.claim('hook', 'two', now + 1001, 1000, 10))).toEqual([1]);
  });

  it('claims a delivery that is not due yet only once it is', async () => {
    await fannedOut(events([1, 'Story.create', 'a']));
    expect(await store.claim('hook', 'one', Date.now() - 60_000, 1000, 10)).toEqual([]);
    expect(seqs(await store.claim('hook', 'one', later(), 1000, 10))).toEqual([1]);
  });

  it('tries a failed delivery again at the time it is given', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.update', 'a']));
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    await store.failed('hook', 1, { attempts: 1, nextAt: now + 5000, error: 'HTTP 500', status: 500, now });
    // Released, but not due; and 2 still waits for it.
    expect(await store.claim('hook', 'one', now + 4999, 60_000, 10)).toEqual([]);
    const [again, ...rest] = await store.claim('hook', 'one', now + 5000, 60_000, 10);
    expect(rest).toEqual([]);
    expect(again).toMatchObject({
      seq: 1,
      status: 'pending',
      attempts: 1,
      nextAt: now + 5000,
      lastError: 'HTTP 500',
      lastStatus: 500,
      doneAt: null,
    });
    // Acknowledged at the second attempt: two attempts, the 2xx last, the earlier error kept.
    await store.delivered('hook', [1], now + 5001, 204);
    const [delivered] = await store.list('hook', 'delivered', { limit: 10 });
    expect(delivered).toMatchObject({
      seq: 1,
      attempts: 2,
      lastStatus: 204,
      lastError: 'HTTP 500',
      doneAt: now + 5001,
    });
    expect((await store.counts('hook')).lastError).toBeNull();
  });

  it('gives up a delivery whose attempts ran out, and sends the next one of its object', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.update', 'a']));
    const now = later();
    expect(seqs(await store.claim('hook', 'one', now, 60_000, 10))).toEqual([1]);
    await store.failed('hook', 1, { attempts: 5, nextAt: null, error: 'refused', status: null, now });
    const [dead] = await store.list('hook', 'dead', { limit: 10 });
    expect(dead).toMatchObject({ seq: 1, attempts: 5, doneAt: now, lastError: 'refused', lastStatus: null });
    expect(seqs(await store.claim('hook', 'one', now + 1, 60_000, 10))).toEqual([2]);
  });

  it('retries a dead, pending or delivered delivery (sent again), from its first attempt', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.create', 'c']));
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    await store.failed('hook', 1, { attempts: 5, nextAt: null, error: 'refused', status: null, now });
    await store.failed('hook', 2, { attempts: 1, nextAt: now + 60_000, error: 'HTTP 503', status: 503, now });
    await store.delivered('hook', [3], now, 200);
    expect(await store.retry('hook', 1, now + 1)).toBe(true);
    expect(await store.retry('hook', 2, now + 1)).toBe(true);
    expect(await store.retry('hook', 3, now + 1)).toBe(true);
    expect(await store.retry('hook', 99, now + 1)).toBe(false);
    const claimed = await store.claim('hook', 'one', now + 1, 60_000, 10);
    expect(claimed.map((d) => [d.seq, d.attempts, d.nextAt, d.doneAt])).toEqual([
      [1, 0, now + 1, null],
      [2, 0, now + 1, null],
      [3, 0, now + 1, null],
    ]);
  });

  it('retries every dead delivery of a subscription', async () => {
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.create', 'c']));
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    for (const seq of [1, 3]) {
      await store.failed('hook', seq, { attempts: 5, nextAt: null, error: 'refused', status: null, now });
    }
    expect(await store.retryDead('other', now + 1)).toBe(0);
    expect(await store.retryDead('hook', now + 1)).toBe(2);
    expect(await store.list('hook', 'dead', { limit: 10 })).toEqual([]);
    expect(seqs(await store.claim('hook', 'two', now + 1, 60_000, 10))).toEqual([1, 3]);
  });

  it('counts by status, with the error of the latest failure, cut to 500 characters', async () => {
    await fannedOut(
      events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.create', 'c'], [4, 'Story.create', 'd']),
    );
    expect(await store.counts('hook')).toEqual({ pending: 4, delivered: 0, dead: 0, lastError: null });
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    await store.delivered('hook', [1], now, 200);
    await store.failed('hook', 2, { attempts: 5, nextAt: null, error: 'refused', status: null, now });
    await store.failed('hook', 3, { attempts: 1, nextAt: now + 1, error: '€'.repeat(600), status: 500, now });
    expect(await store.counts('hook')).toEqual({ pending: 2, delivered: 1, dead: 1, lastError: '€'.repeat(500) });
    expect(await store.counts('other')).toEqual({ pending: 0, delivered: 0, dead: 0, lastError: null });
    // Delivered since, 3 no longer fails: the dead 2's error is the latest still failing.
    await store.delivered('hook', [3], now + 2, 200);
    expect(await store.counts('hook')).toEqual({ pending: 1, delivered: 2, dead: 1, lastError: 'refused' });
  });

  it('lists by status in seq order, a page at a time', async () => {
    await fannedOut(
      events(
        [1, 'Story.create', 'a'],
        [2, 'Story.create', 'b'],
        [3, 'Story.create', 'c'],
        [4, 'Story.create', 'd'],
        [5, 'Story.create', 'e'],
      ),
    );
    await store.delivered('hook', [2, 4], later(), 200);
    expect(seqs(await store.list('hook', 'pending', { limit: 2 }))).toEqual([1, 3]);
    expect(seqs(await store.list('hook', 'pending', { after: 3, limit: 2 }))).toEqual([5]);
    expect(seqs(await store.list('hook', 'delivered', { after: 2, limit: 2 }))).toEqual([4]);
    expect(seqs(await store.list('hook', undefined, { after: 1, limit: 3 }))).toEqual([2, 3, 4]);
    expect(await store.list('other', undefined, { limit: 3 })).toEqual([]);
  });

  it('prunes old delivered and dead deliveries, a batch at a time', async () => {
    await fannedOut(
      events(
        [1, 'Story.create', 'a'],
        [2, 'Story.create', 'b'],
        [3, 'Story.create', 'c'],
        [4, 'Story.create', 'd'],
        [5, 'Story.create', 'e'],
      ),
    );
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    await store.delivered('hook', [1, 2], 1000, 200);
    await store.delivered('hook', [3], 5000, 200);
    await store.failed('hook', 4, { attempts: 5, nextAt: null, error: 'refused', status: null, now: 1000 });
    // Delivered before 2000 (1, 2), dead before 2000 (4): three, two at a time; 3 and pending 5 stay.
    const before = { delivered: 2000, dead: 2000 };
    expect(await store.prune(before, 2)).toBe(2);
    expect(await store.prune(before, 2)).toBe(1);
    expect(await store.prune(before, 2)).toBe(0);
    expect(seqs(await store.list('hook', undefined, { limit: 10 }))).toEqual([3, 5]);
    expect(await store.prune({ delivered: 2000, dead: 0 }, 10)).toBe(0);
    expect(await store.prune({ delivered: 6000, dead: 0 }, 10)).toBe(1);
  });

  it('tells the lowest seq a pending or dead delivery needs', async () => {
    expect(await store.lowestNeeded()).toBeUndefined();
    await fannedOut(events([1, 'Story.create', 'a'], [2, 'Story.create', 'b'], [3, 'Story.create', 'c']));
    expect(await store.lowestNeeded()).toBe(1);
    const now = later();
    await store.claim('hook', 'one', now, 60_000, 10);
    await store.delivered('hook', [1], now, 200);
    await store.failed('hook', 2, { attempts: 5, nextAt: null, error: 'refused', status: null, now });
    expect(await store.lowestNeeded()).toBe(2);
    await store.delivered('hook', [2, 3], now, 200);
    expect(await store.lowestNeeded()).toBeUndefined();
  });

  // --- two instances ------------------------------------------------------------------------------

  it('never leases one delivery to two instances at once', async (context) => {
    if (!backend.another) return context.skip();
    const other = await backend.another();
    await fannedOut(Array.from({ length: 200 }, (_, i) => ({ seq: i + 1, type: 'Story.create', pk: `p${i}` })));
    const now = later();
    const leased = new Map<number, string>();
    const take = async (instance: DeliveryStore, owner: string) => {
      for (const d of await instance.claim('hook', owner, now, 600_000, 7)) {
        expect(leased.get(d.seq), `seq ${d.seq} leased twice`).toBeUndefined();
        leased.set(d.seq, owner);
      }
    };
    for (let round = 0; leased.size < 200 && round < 100; round++) {
      await Promise.all([take(store, 'one'), take(other, 'two'), take(store, 'three'), take(other, 'four')]);
    }
    expect(leased.size).toBe(200);
    expect(await store.claim('hook', 'five', now, 600_000, 10)).toEqual([]);
  });

  it('makes each delivery exactly once when two instances fan out at once', async (context) => {
    if (!backend.another) return context.skip();
    const other = await backend.another();
    await subscribe();
    const stories = (type: string) => type.startsWith('Story.');
    let made = 0;
    const fan = async (instance: DeliveryStore) => {
      const n = await instance.fanOut('hook', stories, 7);
      made += n;
    };
    let seq = 0;
    for (let round = 0; round < 20; round++) {
      // Events keep coming while the two fan out.
      const batch = Array.from({ length: 10 }, (_, i) => ({
        seq: ++seq,
        type: i % 3 === 0 ? 'User.create' : 'Story.create',
        pk: `p${seq % 13}`,
      }));
      await Promise.all([backend.addEvents(batch), fan(store), fan(other), fan(store), fan(other)]);
    }
    for (let round = 0; round < 100 && (await backend.cursor('hook')) !== seq; round++) {
      await Promise.all([fan(store), fan(other)]);
    }
    const wanted = Array.from({ length: seq }, (_, i) => i + 1).filter((s) => ((s - 1) % 10) % 3 !== 0);
    expect(seqs(await store.list('hook', undefined, { limit: 1000 }))).toEqual(wanted);
    expect(made).toBe(wanted.length);
  });
});
