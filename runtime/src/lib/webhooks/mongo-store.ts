/**
 * The webhook deliveries on MongoDB, safe with several instances dispatching at once without
 * transactions (a standalone server has none):
 *
 * - `svc_events`: `{ _id: seq, id, type, model, pk, time, data }` (lib/outbox/schema.ts).
 * - `svc_deliveries`: `{ _id: "<subscription>:<seq>", subscription, seq, eventId, type, object,
 *   status, attempts, nextAt, leaseOwner, leaseUntil, lastError, lastStatus, doneAt }`: the SQL
 *   columns, camelCase; times are epoch ms.
 * - `svc_webhook_cursors`: `{ _id: subscription, seq }`, the last seq fanned out.
 *
 * Fanning out inserts the deliveries (their `_id` makes a second insert a duplicate, ignored), then
 * moves the cursor only if it is still where it was read (compare-and-set): two instances fanning
 * out the same events make each delivery once, and the cursor never passes an event whose
 * delivery is not inserted yet. A claim leases each delivery with a conditional update that only
 * one instance can win.
 */
import type { Collection, Db, Filter, OptionalUnlessRequiredId } from 'mongodb';
import { CURSORS, DELIVERIES, EVENTS } from '../outbox/schema.js';
import type { Delivery, DeliveryCounts, DeliveryStatus, DeliveryStore } from './types.js';

/** Pending deliveries read per claim to find each object's first one (see `claim`). */
const HEADS_BATCH = 1000;
/** `lastError` keeps this many characters: a receiver's whole error page is not needed. */
const ERROR_LENGTH = 500;

interface EventDoc {
  _id: number;
  id: string;
  type: string;
  model: string;
  pk: string;
}

interface DeliveryDoc {
  _id: string;
  subscription: string;
  seq: number;
  eventId: string;
  type: string;
  object: string;
  status: DeliveryStatus;
  attempts: number;
  nextAt: number;
  leaseOwner: string | null;
  leaseUntil: number;
  lastError: string | null;
  lastStatus: number | null;
  doneAt: number | null;
}

interface CursorDoc {
  _id: string;
  seq: number;
}

/** The indexes the store's queries need; idempotent (run at every start). */
export async function ensureMongoOutbox(db: Db): Promise<void> {
  await db.collection(DELIVERIES).createIndexes([
    // Claims, lists by status, counts, retryDead.
    { key: { subscription: 1, status: 1, seq: 1 }, name: 'svc_deliveries_status' },
    // Lists of every status, delivered, the latest error.
    { key: { subscription: 1, seq: 1 }, name: 'svc_deliveries_seq' },
    { key: { status: 1, doneAt: 1 }, name: 'svc_deliveries_done' },
    { key: { status: 1, seq: 1 }, name: 'svc_deliveries_needed' },
  ]);
}

export class MongoDeliveryStore implements DeliveryStore {
  readonly events: Collection<EventDoc>;
  readonly deliveries: Collection<DeliveryDoc>;
  readonly cursors: Collection<CursorDoc>;

  constructor(db: Db) {
    this.events = db.collection<EventDoc>(EVENTS);
    this.deliveries = db.collection<DeliveryDoc>(DELIVERIES);
    this.cursors = db.collection<CursorDoc>(CURSORS);
  }

  async fanOut(subscription: string, matches: (type: string) => boolean, limit: number): Promise<number> {
    const cursor = await this.cursor(subscription);
    const events = await this.events
      .find(
        { _id: { $gt: cursor } },
        { sort: { _id: 1 }, limit, projection: { _id: 1, id: 1, type: 1, model: 1, pk: 1 } },
      )
      .toArray();
    if (events.length === 0) return 0;
    const now = Date.now();
    const made = await insertNew(
      this.deliveries,
      events.filter((e) => matches(e.type)).map((e) => newDelivery(subscription, e, now)),
    );
    // Compare-and-set: when another instance moved the cursor meanwhile, it made these same
    // deliveries (or is making them) and its move stands.
    await this.cursors.updateOne({ _id: subscription, seq: cursor }, { $set: { seq: events.at(-1)!._id } });
    return made;
  }

  /** The subscription's cursor, created at the latest event when it has none. */
  private async cursor(subscription: string): Promise<number> {
    const found = await this.cursors.findOne({ _id: subscription });
    if (found) return found.seq;
    const [latest] = await this.events.find({}, { sort: { _id: -1 }, limit: 1, projection: { _id: 1 } }).toArray();
    // Another instance may create it first: then its start stands.
    await insertNew(this.cursors, [{ _id: subscription, seq: latest?._id ?? 0 }]);
    return (await this.cursors.findOne({ _id: subscription }))!.seq;
  }

  /**
   * Only deliveries at or below the cursor are claimed: the cursor moves once all deliveries up to
   * it are inserted, so among them the first pending delivery of an object is its first one at all
   * (a fan-out still inserting may have written a later delivery of the object before an earlier).
   * The first pending delivery of each object is found in the oldest HEADS_BATCH pending ones: an
   * object with a longer backlog delays the objects whose deliveries are all after it.
   */
  async claim(subscription: string, owner: string, now: number, leaseMs: number, limit: number): Promise<Delivery[]> {
    const fanned = await this.cursors.findOne({ _id: subscription });
    if (!fanned) return [];
    const pending = await this.deliveries
      .find(
        { subscription, status: 'pending', seq: { $lte: fanned.seq } },
        { sort: { seq: 1 }, limit: HEADS_BATCH, projection: { _id: 1, object: 1, nextAt: 1, leaseUntil: 1 } },
      )
      .toArray();
    const candidates = heads(pending).filter((d) => d.nextAt <= now && d.leaseUntil < now);
    const claimed: DeliveryDoc[] = [];
    for (let i = 0; i < candidates.length && claimed.length < limit;) {
      // As many as are still wanted, at once; those another instance leased first come back null.
      const next = candidates.slice(i, (i += limit - claimed.length));
      const leased = await Promise.all(next.map((c) => this.lease(c._id, owner, now, leaseMs)));
      claimed.push(...leased.filter((d) => d !== null));
    }
    return claimed.sort((a, b) => a.seq - b.seq).map(delivery);
  }

  /** Leases one delivery if it is still pending, due and free: one instance only can. */
  private lease(id: string, owner: string, now: number, leaseMs: number): Promise<DeliveryDoc | null> {
    return this.deliveries.findOneAndUpdate(
      { _id: id, status: 'pending', nextAt: { $lte: now }, leaseUntil: { $lt: now } },
      { $set: { leaseOwner: owner, leaseUntil: now + leaseMs } },
      { returnDocument: 'after' },
    );
  }

  async delivered(subscription: string, seqs: readonly number[], now: number, status: number): Promise<void> {
    if (seqs.length === 0) return;
    await this.deliveries.updateMany(
      { subscription, seq: { $in: [...seqs] } },
      {
        $set: { status: 'delivered', doneAt: now, lastStatus: status, leaseOwner: null, leaseUntil: 0 },
        $inc: { attempts: 1 },
      },
    );
  }

  async failed(
    subscription: string,
    seq: number,
    failure: { attempts: number; nextAt: number | null; error: string; status: number | null; now: number },
  ): Promise<void> {
    // Pending again at nextAt, or dead (its nextAt left as it was: never read again).
    const outcome =
      failure.nextAt === null
        ? { status: 'dead' as const, doneAt: failure.now }
        : { status: 'pending' as const, nextAt: failure.nextAt };
    await this.deliveries.updateOne(
      { _id: deliveryId(subscription, seq) },
      {
        $set: {
          ...outcome,
          attempts: failure.attempts,
          lastError: truncated(failure.error),
          lastStatus: failure.status,
          leaseOwner: null,
          leaseUntil: 0,
        },
      },
    );
  }

  async list(
    subscription: string,
    status: DeliveryStatus | undefined,
    page: { after?: number; limit: number },
  ): Promise<Delivery[]> {
    const filter: Filter<DeliveryDoc> = { subscription, seq: { $gt: page.after ?? 0 }, ...(status ? { status } : {}) };
    const docs = await this.deliveries.find(filter, { sort: { seq: 1 }, limit: page.limit }).toArray();
    return docs.map(delivery);
  }

  async counts(subscription: string): Promise<DeliveryCounts> {
    const groups = await this.deliveries
      .aggregate<{ _id: DeliveryStatus; n: number }>([
        { $match: { subscription } },
        { $group: { _id: '$status', n: { $sum: 1 } } },
      ])
      .toArray();
    // No failure time is stored: the failure of the latest event still failing stands for the most
    // recent one; a delivery acknowledged since is no longer failing.
    const last = await this.deliveries.findOne(
      { subscription, lastError: { $ne: null }, status: { $ne: 'delivered' } },
      { sort: { seq: -1 }, projection: { lastError: 1 } },
    );
    const count = (status: DeliveryStatus) => groups.find((g) => g._id === status)?.n ?? 0;
    return {
      pending: count('pending'),
      delivered: count('delivered'),
      dead: count('dead'),
      lastError: last?.lastError ?? null,
    };
  }

  async retry(subscription: string, seq: number, now: number): Promise<boolean> {
    const result = await this.deliveries.updateOne({ _id: deliveryId(subscription, seq) }, { $set: again(now) });
    return result.matchedCount > 0;
  }

  async retryDead(subscription: string, now: number): Promise<number> {
    return (await this.deliveries.updateMany({ subscription, status: 'dead' }, { $set: again(now) })).matchedCount;
  }

  async prune(before: { delivered: number; dead: number }, limit: number): Promise<number> {
    const old: Filter<DeliveryDoc> = {
      $or: [
        { status: 'delivered', doneAt: { $lt: before.delivered } },
        { status: 'dead', doneAt: { $lt: before.dead } },
      ],
    };
    const batch = await this.deliveries.find(old, { limit, projection: { _id: 1 } }).toArray();
    if (batch.length === 0) return 0;
    // `old` again: a dead delivery retried meanwhile stays.
    const result = await this.deliveries.deleteMany({ ...old, _id: { $in: batch.map((d) => d._id) } });
    return result.deletedCount;
  }

  async lowestNeeded(): Promise<number | undefined> {
    const lowest = await this.deliveries.findOne(
      { status: { $in: ['pending', 'dead'] } },
      { sort: { seq: 1 }, projection: { seq: 1 } },
    );
    return lowest?.seq;
  }
}

function deliveryId(subscription: string, seq: number): string {
  return `${subscription}:${seq}`;
}

function newDelivery(subscription: string, event: EventDoc, now: number): DeliveryDoc {
  return {
    _id: deliveryId(subscription, event._id),
    subscription,
    seq: event._id,
    eventId: event.id,
    type: event.type,
    object: `${event.model}:${event.pk}`,
    status: 'pending',
    attempts: 0,
    nextAt: now,
    leaseOwner: null,
    leaseUntil: 0,
    lastError: null,
    lastStatus: null,
    doneAt: null,
  };
}

/** Due again now, from its first attempt, by whichever instance claims it. */
function again(now: number): Partial<DeliveryDoc> {
  return { status: 'pending', attempts: 0, nextAt: now, doneAt: null, leaseOwner: null, leaseUntil: 0 };
}

/** The first pending delivery of each object, in seq order (`pending` is sorted by seq). */
function heads<D extends { object: string }>(pending: readonly D[]): D[] {
  const seen = new Set<string>();
  return pending.filter((d) => !seen.has(d.object) && seen.add(d.object));
}

/**
 * Inserts `docs`, unordered (a duplicate does not stop the inserts after it), leaving out those
 * whose `_id` is taken (duplicate key, 11000); returns how many were inserted.
 */
async function insertNew<D extends { _id: string }>(collection: Collection<D>, docs: D[]): Promise<number> {
  if (docs.length === 0) return 0;
  try {
    return (await collection.insertMany(docs as OptionalUnlessRequiredId<D>[], { ordered: false })).insertedCount;
  } catch (error) {
    const e = error as { writeErrors?: { code?: number }[]; insertedCount?: number };
    if (!e.writeErrors?.length || e.writeErrors.some((w) => w.code !== 11000)) throw error;
    return e.insertedCount ?? 0;
  }
}

/** The first ERROR_LENGTH characters (code points: a surrogate pair is never cut in two). */
function truncated(error: string): string {
  return error.length <= ERROR_LENGTH ? error : Array.from(error).slice(0, ERROR_LENGTH).join('');
}

function delivery(doc: DeliveryDoc): Delivery {
  return {
    subscription: doc.subscription,
    seq: doc.seq,
    eventId: doc.eventId,
    type: doc.type,
    object: doc.object,
    status: doc.status,
    attempts: doc.attempts,
    nextAt: doc.nextAt,
    lastError: doc.lastError,
    lastStatus: doc.lastStatus,
    doneAt: doc.doneAt,
  };
}
