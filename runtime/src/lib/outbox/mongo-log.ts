/**
 * The outbox on MongoDB: the `svc_events` collection, `_id` = seq. An append takes its seqs from
 * the counter in `svc_event_sequence` inside the write's transaction: two transactions that
 * append conflict on it, and MongoDB runs the later one again (the engine's TransientTransactionError
 * retry), so seqs are given in commit order, and a rolled-back write takes none. On a standalone
 * server (no transactions, the service warns at start-up) a reader may see a seq before a lower
 * one lands; the feed and webhooks then miss nothing only because they read a little behind.
 */
import type { ClientSession, Db } from 'mongodb';
import { eventDataOf, eventIdentity, eventType, storedEvent } from './event.js';
import { EVENT_SEQUENCE, EVENTS } from './schema.js';
import type { EventData, EventLog, NewEvent, ServiceEvent } from './types.js';

interface EventDocument {
  _id: number;
  id: string;
  type: string;
  model: string;
  pk: string;
  time: string;
  data: EventData;
}

/** Appends `events` in `session`'s transaction (or alone, without one). */
export async function appendMongo(
  db: Db,
  session: ClientSession | undefined,
  events: readonly NewEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const options = session ? { session } : {};
  const counter = await sequence(db).findOneAndUpdate(
    { _id: 'seq' },
    { $inc: { seq: events.length } },
    { ...options, upsert: true, returnDocument: 'after' },
  );
  const first = counter!.seq - events.length + 1;
  const documents: EventDocument[] = events.map((event, i) => ({
    _id: first + i,
    ...eventIdentity(),
    type: eventType(event),
    model: event.model,
    pk: event.pk,
    data: eventDataOf(event),
  }));
  await db.collection<EventDocument>(EVENTS).insertMany(documents, options);
}

/** The collection of the events' counter. */
function sequence(db: Db) {
  return db.collection<{ _id: string; seq: number }>(EVENT_SEQUENCE);
}

export class MongoEventLog implements EventLog {
  constructor(readonly db: Db) {}

  private get events() {
    return this.db.collection<EventDocument>(EVENTS);
  }

  async after(seq: number, limit: number): Promise<ServiceEvent[]> {
    const docs = await this.events.find({ _id: { $gt: seq } }, { sort: { _id: 1 }, limit }).toArray();
    return docs.map((d) => storedEvent({ ...d, seq: d._id }));
  }

  async bySeq(seqs: readonly number[]): Promise<ServiceEvent[]> {
    if (seqs.length === 0) return [];
    const docs = await this.events.find({ _id: { $in: [...seqs] } }, { sort: { _id: 1 } }).toArray();
    return docs.map((d) => storedEvent({ ...d, seq: d._id }));
  }

  async createdAfter(model: string, pk: string, seq: number): Promise<number | undefined> {
    const [doc] = await this.events
      .find(
        { _id: { $gt: seq }, model, pk, type: { $in: [`${model}.create`, `${model}.register`] } },
        { sort: { _id: -1 }, limit: 1, projection: { _id: 1 } },
      )
      .toArray();
    return doc?._id;
  }

  async deletedBefore(model: string, pk: string, seq: number, within: number): Promise<ServiceEvent | undefined> {
    const [doc] = await this.events
      .find({ _id: { $lt: seq, $gte: seq - within }, type: `${model}.delete`, pk }, { sort: { _id: -1 }, limit: 1 })
      .toArray();
    return doc ? storedEvent({ ...doc, seq: doc._id }) : undefined;
  }

  async oldest(): Promise<number | undefined> {
    const [doc] = await this.events.find({}, { sort: { _id: 1 }, limit: 1, projection: { _id: 1 } }).toArray();
    return doc?._id;
  }

  async latest(): Promise<number> {
    return (await sequence(this.db).findOne({ _id: 'seq' }))?.seq ?? 0;
  }

  sequence(): Promise<number> {
    return Promise.resolve(0);
  }

  async prune(before: Date, limit: number, needed: number | undefined): Promise<number> {
    const below = needed ?? Number.MAX_SAFE_INTEGER;
    const old = await this.events
      .find(
        { _id: { $lt: below }, time: { $lt: before.toISOString() } },
        { sort: { _id: 1 }, limit, projection: { _id: 1 } },
      )
      .toArray();
    if (old.length === 0) return 0;
    const result = await this.events.deleteMany({ _id: { $in: old.map((d) => d._id) } });
    return result.deletedCount;
  }
}
