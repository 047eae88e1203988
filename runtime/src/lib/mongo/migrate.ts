/**
 * The MongoDB side of the migrations: the `mongodb` steps of each migration the database has not
 * seen, in order, recorded in the `svc_migrations` collection (`{ _id: name, checksum, applied_at }`,
 * the checksum of the steps' JSON). `openMongo` applies them before it reconciles the indexes.
 *
 * MongoDB cannot undo a migration's steps together as SQL does, so every step is idempotent: a
 * migration that stopped half-way (a crash) is applied again from its first step at the next start.
 * The same rules as on SQL stop the service: a changed migration, or an applied one the code
 * does not know. One instance migrates at a time: it holds a lock document in `svc_migrations`,
 * with a lease it renews while it works, so that a holder that crashed blocks the others for a
 * minute at most.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { checksum, MigrationError, pendingOf, WAIT_SECONDS, type Migration, type MongoStep } from '../migrate.js';
import type { ModelRegistry } from '../model.js';
import { now as currentTime } from '../values.js';
import { searchTokens } from '../search.js';
import { collectionExists, isSvcgenIndex, SEARCH_INDEX, svcgenIndex, type IndexKind } from './indexes.js';
import { COUNTERS } from './repository.js';
import { documentPath } from './values.js';
import { SEARCH_FIELD } from './search.js';
import { toMongo } from './values.js';
import { DELIVERIES, EVENTS } from '../outbox/schema.js';
import type { EventAction } from '../outbox/types.js';

interface MigrationRecord {
  _id: string;
  checksum?: string;
  applied_at?: Date;
  /** On the lock document: who holds it, until when. */
  owner?: string;
  expires_at?: Date;
}

const RECORDS = 'svc_migrations';
const LOCK = 'lock';
const LEASE_MS = 60_000;
const RENEW_MS = 15_000;

export function mongoChecksum(migration: Migration): string {
  return checksum(JSON.stringify(migration.mongodb ?? []));
}

/** Applies the pending migrations' steps; resolves with their names, in order. */
export async function migrateMongo(db: Db, models: ModelRegistry, migrations: readonly Migration[]): Promise<string[]> {
  // Most starts have nothing to do, and take no lock.
  if ((await pendingMongoMigrations(db, migrations)).length === 0) return [];
  return withLock(db, async () => {
    const applied: string[] = [];
    // Read again: another instance may have applied them while this one waited for the lock.
    for (const migration of await pendingMongoMigrations(db, migrations)) {
      for (const step of migration.mongodb ?? []) await applyStep(db, models, migration.name, step);
      await records(db).insertOne({ _id: migration.name, checksum: mongoChecksum(migration), applied_at: new Date() });
      applied.push(migration.name);
    }
    return applied;
  });
}

/** The migrations the database has not seen, in order; throws when it does not match the code. */
export async function pendingMongoMigrations(db: Db, migrations: readonly Migration[]): Promise<Migration[]> {
  const rows = await records(db)
    .find({ _id: { $ne: LOCK } })
    .toArray();
  return pendingOf(new Map(rows.map((r) => [r._id, String(r.checksum)])), migrations, mongoChecksum);
}

function records(db: Db): Collection<MigrationRecord> {
  return db.collection<MigrationRecord>(RECORDS);
}

// --- the steps ------------------------------------------------------------------------------------

/** What a change of an object can be, as event types end (`Story.create`). */
const EVENT_ACTIONS: readonly EventAction[] = ['create', 'update', 'replace', 'delete', 'register'];

/**
 * Retained events of a renamed model read as the model is now called: type, model, the object's
 * `_type`; and their deliveries, whose `object` (`<Model>:<pk>`) keeps one object's in order.
 */
async function renameEventModel(db: Db, from: string, to: string): Promise<void> {
  const types = new Map(EVENT_ACTIONS.map((action) => [`${from}.${action}`, `${to}.${action}`]));
  for (const [before, after] of types)
    await db.collection(EVENTS).updateMany({ type: before }, { $set: { type: after } });
  await db.collection(EVENTS).updateMany({ model: from }, { $set: { model: to, 'data.object._type': to } });
  const deliveries = db.collection<{ _id: string; type: string; object: string }>(DELIVERIES);
  for (const delivery of await deliveries.find({ type: { $in: [...types.keys()] } }).toArray())
    await deliveries.updateOne(
      { _id: delivery._id },
      { $set: { type: types.get(delivery.type)!, object: `${to}${delivery.object.slice(from.length)}` } },
    );
}

async function applyStep(db: Db, models: ModelRegistry, migration: string, step: MongoStep): Promise<void> {
  switch (step.op) {
    case 'renameCollection':
      return renameCollection(db, migration, step.from, step.to);
    case 'dropCollection':
      return ignoreMissing(db.dropCollection(step.collection).then(() => undefined));
    case 'renameField':
      await db
        .collection(step.collection)
        .updateMany({ [step.from]: { $exists: true } }, { $rename: { [step.from]: step.to } });
      return;
    case 'unsetField':
      await db
        .collection(step.collection)
        .updateMany({ [step.field]: { $exists: true } }, { $unset: { [step.field]: '' } });
      return;
    case 'setMissing':
      return setMissing(db, step, storedValue(models, step.collection, step.field, step.value));
    case 'setMissingNow':
      return setMissing(db, step, storedValue(models, step.collection, step.field, currentTime()));
    case 'createIndex':
      return createIndex(
        db.collection(step.collection),
        migration,
        step.field,
        step.unique ? 'unique' : step.asked ? 'svc_index' : 'link',
      );
    case 'dropIndex':
      for (const index of await svcgenIndexes(db.collection(step.collection), step.field))
        await db.collection(step.collection).dropIndex(index);
      return;
    case 'requireValues':
      if (await db.collection(step.collection).findOne({ [step.field]: null }, { projection: { _id: 1 } }))
        throw new Error(
          `${step.collection}.${step.field}: a stored document has no value, and the field is now required (migration ${migration})`,
        );
      return;
    case 'convertToText':
      return convertToText(db.collection(step.collection), step.field);
    case 'convertTemporal':
      return convertTemporal(db.collection(step.collection), step.field, step.to);
    case 'renameEventModel':
      return renameEventModel(db, step.from, step.to);
    case 'renameEventField':
      return renameEventField(db, step.model, step.from, step.to);
    case 'dropEventField':
      return dropEventField(db, step.model, step.field);
    case 'indexWords':
      return indexWords(db.collection(step.collection), step.fields);
    case 'dropWords':
      await ignoreMissing(db.collection(step.collection).dropIndex(SEARCH_INDEX.name));
      await db
        .collection(step.collection)
        .updateMany({ [SEARCH_FIELD]: { $exists: true } }, { $unset: { [SEARCH_FIELD]: '' } });
      return;
  }
}

/**
 * A field's new name in the retained events of its model: in their object, in the object as it was
 * (`_event_previous`), and among the names of the fields that changed (one event at a time: a
 * list's item is renamed alike on every server).
 */
async function renameEventField(db: Db, model: string, from: string, to: string): Promise<void> {
  const events = db.collection(EVENTS);
  for (const part of ['object', 'previous']) {
    const [was, is] = [`data.${part}.${from}`, `data.${part}.${to}`];
    await events.updateMany({ model, [was]: { $exists: true } }, { $rename: { [was]: is } });
  }
  for await (const event of events.find({ model, 'data.changed': from }, { projection: { 'data.changed': 1 } })) {
    const changed = (event['data'] as { changed: unknown[] }).changed.map((name) => (name === from ? to : name));
    await events.updateOne({ _id: event._id }, { $set: { 'data.changed': changed } });
  }
}

/** A dropped field out of the retained events of its model: their object, as it was, and `changed`. */
async function dropEventField(db: Db, model: string, field: string): Promise<void> {
  await db
    .collection(EVENTS)
    .updateMany(
      { model, $or: ['object', 'previous', 'changed'].map((part) => ({ [`data.${part}`]: { $exists: true } })) },
      {
        $unset: { [`data.object.${field}`]: '', [`data.previous.${field}`]: '' },
        $pull: { 'data.changed': field },
      } as never,
    );
}

/**
 * Every document's words, from the fields the search now covers (name → document path), in
 * batches; then their index. Done again, it writes the same words.
 */
async function indexWords(collection: Collection, fields: Readonly<Record<string, string>>): Promise<void> {
  const projection = Object.fromEntries(Object.values(fields).map((path) => [path, 1]));
  let batch: AnyBulkWriteOperation[] = [];
  for await (const doc of collection.find({}, { projection })) {
    const words = searchTokens(Object.entries(fields).map(([name, path]) => [name, doc[path]] as const));
    batch.push({ updateOne: { filter: { _id: doc._id }, update: { $set: { [SEARCH_FIELD]: words } } } });
    if (batch.length === 1000) {
      await collection.bulkWrite(batch);
      batch = [];
    }
  }
  if (batch.length) await collection.bulkWrite(batch);
  await collection.createIndex(SEARCH_INDEX.key, { name: SEARCH_INDEX.name });
}

/** Documents without a value for the step's field get `value`. */
async function setMissing(db: Db, step: { collection: string; field: string }, value: unknown): Promise<void> {
  // Null is never stored (an absent field is null): there is nothing to set.
  if (value === undefined) return;
  await db.collection(step.collection).updateMany({ [step.field]: null }, { $set: { [step.field]: value } });
}

/**
 * Each stored value of `field` as the temporal type `to` stores it (`temporalValue`). A value
 * already converted is left alone, so the step may run again.
 */
async function convertTemporal(collection: Collection, field: string, to: 'datetime' | 'date' | 'time'): Promise<void> {
  const cursor = collection.find({ [field]: { $ne: null } }, { projection: { [field]: 1 } });
  for await (const document of cursor) {
    const value: unknown = document[field];
    const converted = temporalValue(value, to);
    if (converted !== undefined && converted !== value)
      await collection.updateOne({ _id: document._id }, { $set: { [field]: converted } });
  }
}

/** Each stored number of `field` as its decimal digits; a value already text is left alone. */
async function convertToText(collection: Collection, field: string): Promise<void> {
  for await (const document of collection.find({ [field]: { $ne: null } }, { projection: { [field]: 1 } })) {
    const value: unknown = document[field];
    if (typeof value === 'number' || typeof value === 'bigint')
      await collection.updateOne({ _id: document._id }, { $set: { [field]: String(value) } });
  }
}

/**
 * A stored datetime (a BSON date) or date (text) as `to` stores it: a datetime's date or time of
 * day in UTC, as text; a date's midnight, as a BSON date. Undefined for what is neither.
 */
function temporalValue(value: unknown, to: 'datetime' | 'date' | 'time'): unknown {
  const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : undefined;
  if (text === undefined) return undefined;
  if (to === 'date') return text.slice(0, 10);
  if (to === 'time') return text.includes('T') ? text.slice(11, 19) : text;
  if (value instanceof Date) return value;
  const time = new Date(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/**
 * Renamed when `from` exists and `to` does not (or is empty): so again, after it ran, it does
 * nothing. The counter of generated keys goes with the documents (after them, so that a refused
 * rename leaves it), or the renamed model would give its keys from 1 again, to documents whose
 * keys are taken.
 */
async function renameCollection(db: Db, migration: string, from: string, to: string): Promise<void> {
  if (await collectionExists(db, from)) {
    if (await collectionExists(db, to)) {
      if (await db.collection(to).findOne({})) {
        throw new MigrationError(
          `migration ${migration} cannot rename collection ${from} to ${to}: both exist and ${to} has documents`,
        );
      }
      await db.renameCollection(from, to, { dropTarget: true });
    } else {
      await db.renameCollection(from, to);
    }
  }
  await moveKeyCounter(db, from, to);
}

/** `to` counts on from `from`'s highest key (or its own, if higher); done again, it does nothing. */
async function moveKeyCounter(db: Db, from: string, to: string): Promise<void> {
  const counters = db.collection<{ _id: string; seq: number }>(COUNTERS);
  const counter = await counters.findOne({ _id: from });
  if (!counter) return;
  await counters.updateOne({ _id: to }, { $max: { seq: counter.seq } }, { upsert: true });
  await counters.deleteOne({ _id: from });
}

/**
 * The same names and options as the index reconciliation of database.ts (`<field>_unique`,
 * sparse, `<field>_link` or `<field>_svc_index`), so that it finds the index in place. svcgen's index of another
 * kind on the field (a link that becomes unique) goes first: MongoDB keeps one index per key.
 */
async function createIndex(collection: Collection, migration: string, field: string, kind: IndexKind): Promise<void> {
  const { key, ...options } = svcgenIndex(field, kind);
  const name = options.name;
  const existing = await svcgenIndexes(collection, field);
  if (existing.includes(name)) return;
  for (const other of existing) await collection.dropIndex(other);
  try {
    await collection.createIndex(key, options);
  } catch (error) {
    throw new MigrationError(
      `migration ${migration} cannot create the index ${name} of ${collection.collectionName}: ${(error as Error).message}${kind === 'unique' ? ' (values that must be unique are not)' : ''}`,
      { cause: error },
    );
  }
}

/** The names of svcgen's indexes (`_unique`, `_link`) on `field` alone; none when the collection does not exist. */
async function svcgenIndexes(collection: Collection, field: string): Promise<string[]> {
  const indexes = await ignoreMissing(collection.listIndexes().toArray());
  return (indexes ?? [])
    .filter((i) => isSvcgenIndex(i['name']))
    .filter((i) => JSON.stringify(i['key']) === JSON.stringify({ [field]: 1 }))
    .map((i) => String(i['name']));
}

/**
 * A value as the API shows it (a datetime `YYYY-MM-DDTHH:MM:SSZ`), as the documents store it
 * when the model still has the field (a BSON date, for a datetime); as it is otherwise.
 */
function storedValue(models: ModelRegistry, collection: string, path: string, value: unknown): unknown {
  for (const model of models.values()) {
    if (model.table !== collection) continue;
    const field = model.columns.find((f) => documentPath(model, f.column!) === path);
    if (field) return toMongo(value, field);
  }
  return value ?? undefined;
}

/** The result of `work`, or undefined when MongoDB says the collection does not exist (NamespaceNotFound). */
async function ignoreMissing<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if ((error as { code?: number }).code === 26) return undefined;
    throw error;
  }
}

// --- the lock -------------------------------------------------------------------------------------

async function withLock<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const owner = `${hostname()}:${process.pid}:${randomUUID()}`;
  await acquire(db, owner);
  const renew = setInterval(() => {
    records(db)
      .updateOne({ _id: LOCK, owner }, { $set: { expires_at: new Date(Date.now() + LEASE_MS) } })
      .catch(() => undefined);
  }, RENEW_MS);
  try {
    return await work();
  } finally {
    clearInterval(renew);
    await records(db)
      .deleteOne({ _id: LOCK, owner })
      .catch(() => undefined);
  }
}

/** Takes the lock document, or the one a crashed holder left once its lease has run out; waits for WAIT_SECONDS at most. */
async function acquire(db: Db, owner: string): Promise<void> {
  const deadline = Date.now() + WAIT_SECONDS * 1000;
  for (;;) {
    const now = Date.now();
    const lease = { owner, expires_at: new Date(now + LEASE_MS) };
    try {
      await records(db).insertOne({ _id: LOCK, ...lease });
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 11000) throw error;
    }
    const expired = await records(db).findOneAndUpdate(
      { _id: LOCK, expires_at: { $lt: new Date(now) } },
      { $set: lease },
    );
    if (expired) return;
    if (Date.now() > deadline) {
      throw new MigrationError(
        `another instance has been migrating this database for more than ${WAIT_SECONDS} s; this one gives up (start it again when that one has finished)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
