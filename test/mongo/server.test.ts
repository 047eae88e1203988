/**
 * svcgen's MongoDB test server (scripts/mongo-test-server) against the official driver, for every
 * operation the MongoDB engine uses: the handshake, reads with filters, sort, skip, limit and
 * projection, counts and distinct values, inserts, updates (operators, replacement, upsert),
 * deletes, findAndModify counters, unique (sparse) indexes and their violations, field renames
 * ($rename) and collection renames (renameCollection, as migrations use them), transactions
 * (commit, abort, one at a time, aborted by a write error), index clashes, the failCommand fail
 * point, and an unknown command.
 */
import { Binary, MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMongoTestServer, type MongoTestServer } from '../../scripts/mongo-test-server/index.mjs';

let server: MongoTestServer;
let client: MongoClient;
let things: Collection<Document>;
let run = 0;

beforeAll(async () => {
  server = await startMongoTestServer();
  client = new MongoClient(server.url);
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

beforeEach(async () => {
  things = client.db(`test${++run}`).collection('things');
  await things.insertMany([
    { _id: 1 as never, name: 'pear', size: 3, tags: ['green'], at: new Date('2026-01-02T00:00:00Z') },
    { _id: 2 as never, name: 'apple', size: 1, tags: ['red', 'green'] },
    { _id: 3 as never, name: 'Plum', size: 2 },
  ]);
});

describe('the MongoDB test server, with the official driver', () => {
  it('answers the handshake as a one-member replica set', async () => {
    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({
      isWritablePrimary: true,
      setName: 'rs0',
      maxWireVersion: 17,
      logicalSessionTimeoutMinutes: 30,
    });
    // The driver's first message on each connection is a legacy OP_QUERY isMaster.
    expect(server.commands.get('ismaster')).toBeGreaterThan(0);
  });

  it('finds with filters, sort, skip, limit and projection', async () => {
    expect(
      (
        await things
          .find({ size: { $gte: 2 } })
          .sort({ name: 1 })
          .toArray()
      ).map((d) => d.name),
    ).toEqual(['Plum', 'pear']);
    expect((await things.find({}, { sort: { _id: -1 }, skip: 1, limit: 1 }).toArray()).map((d) => d._id)).toEqual([2]);
    expect(
      await things
        .find({ tags: 'green' }, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([{ _id: 1 }, { _id: 2 }]);
    expect(
      (
        await things
          .find({ name: { $regex: '^p', $options: 'i' } })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d._id),
    ).toEqual([1, 3]);
    expect(
      (
        await things
          .find({ $nor: [{ size: 1 }], missing: null })
          .sort({ _id: 1 })
          .toArray()
      ).map((d) => d._id),
    ).toEqual([1, 3]);
    expect((await things.findOne({ _id: 1 as never }))?.at).toEqual(new Date('2026-01-02T00:00:00Z'));
  });

  it('does not create a collection that a read only names, as MongoDB does not', async () => {
    const db = client.db(`test${run}`);
    expect(await db.collection('nowhere').findOne({})).toBeNull();
    expect(await db.collection('nowhere').countDocuments()).toBe(0);
    expect((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name)).toEqual(['things']);
  });

  it('counts and lists distinct values', async () => {
    expect(await things.countDocuments({ size: { $lt: 3 } })).toBe(2);
    expect(await things.countDocuments({}, { limit: 1 })).toBe(1);
    expect((await things.distinct('tags')).sort((a: string, b: string) => a.localeCompare(b))).toEqual([
      'green',
      'red',
    ]);
  });

  it('updates with operators, replaces, upserts and deletes', async () => {
    await things.updateOne({ _id: 3 as never }, { $set: { file: new Binary(Buffer.from('bytes')) } });
    expect(
      (await things.updateMany({ size: { $gt: 1 } }, { $set: { big: true }, $unset: { tags: '' } })).modifiedCount,
    ).toBe(2);
    // BSON values survive an update of other fields.
    expect(Buffer.from((await things.findOne({ _id: 3 as never }))?.file.buffer).toString()).toBe('bytes');
    expect(await things.findOne({ _id: 1 as never })).toMatchObject({ big: true, name: 'pear' });
    expect(await things.findOne({ _id: 1 as never })).not.toHaveProperty('tags');
    await things.replaceOne({ _id: 2 as never }, { name: 'quince' });
    expect(await things.findOne({ _id: 2 as never })).toEqual({ _id: 2, name: 'quince' });
    const upsert = await things.updateOne({ _id: 9 as never }, { $set: { name: 'fig' } }, { upsert: true });
    expect(upsert.upsertedId).toBe(9);
    expect((await things.deleteMany({ big: true })).deletedCount).toBe(2);
    expect((await things.deleteOne({ _id: 2 as never })).deletedCount).toBe(1);
    expect(await things.countDocuments()).toBe(1);
  });

  it('renames fields with $rename, only in the documents that have them', async () => {
    const renamed = await things.updateMany(
      { size: { $exists: true }, name: { $ne: 'Plum' } },
      { $rename: { size: 'weight' } },
    );
    expect(renamed.modifiedCount).toBe(2);
    expect(
      await things
        .find({}, { projection: { _id: 1, size: 1, weight: 1 } })
        .sort({ _id: 1 })
        .toArray(),
    ).toEqual([
      { _id: 1, weight: 3 },
      { _id: 2, weight: 1 },
      { _id: 3, size: 2 },
    ]);
  });

  it('renames collections (renameCollection): documents and indexes go along; an existing target only with dropTarget', async () => {
    const db = client.db(`test${run}`);
    await things.createIndex({ name: 1 }, { name: 'name_unique', unique: true, sparse: true });
    await db.collection('taken').insertOne({ _id: 1 as never });
    expect(await db.renameCollection('things', 'taken').catch((e: unknown) => e)).toMatchObject({
      code: 48,
      codeName: 'NamespaceExists',
    });
    await db.renameCollection('things', 'stuff');
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
    expect(names).toEqual(['stuff', 'taken']);
    const stuff = db.collection('stuff');
    expect(await stuff.countDocuments()).toBe(3);
    expect(await stuff.insertOne({ _id: 9 as never, name: 'pear' }).catch((e: unknown) => e)).toMatchObject({
      code: 11000,
    });
    await db.renameCollection('stuff', 'taken', { dropTarget: true });
    expect(await db.collection('taken').countDocuments()).toBe(3);
    expect(await db.renameCollection('gone', 'other').catch((e: unknown) => e)).toMatchObject({
      code: 26,
      codeName: 'NamespaceNotFound',
    });
    expect((await client.db('admin').listCollections().toArray()).map((c) => c.name)).toEqual([]);
  });

  it('counts with findAndModify (upsert, $inc, the document after)', async () => {
    const counters = client.db(`test${run}`).collection<{ _id: string; seq: number }>('counters');
    const next = async () =>
      (await counters.findOneAndUpdate(
        { _id: 'story' },
        { $inc: { seq: 1 } },
        { upsert: true, returnDocument: 'after' },
      ))!.seq;
    expect([await next(), await next(), await next()]).toEqual([1, 2, 3]);
  });

  it('enforces unique indexes: duplicate key errors (11000) with the key, sparse indexes skip absent fields', async () => {
    await things.createIndex({ name: 1 }, { unique: true, sparse: true, name: 'name_unique' });
    const duplicate = await things.insertOne({ _id: 4 as never, name: 'pear' }).catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(MongoServerError);
    expect(duplicate).toMatchObject({ code: 11000, keyPattern: { name: 1 }, keyValue: { name: 'pear' } });
    const byUpdate = await things.updateOne({ _id: 2 as never }, { $set: { name: 'pear' } }).catch((e: unknown) => e);
    expect(byUpdate).toMatchObject({ code: 11000 });
    expect((await things.findOne({ _id: 2 as never }))?.name).toBe('apple');
    const byFindAndModify = await things
      .findOneAndUpdate({ _id: 2 as never }, { $set: { name: 'pear' } })
      .catch((e: unknown) => e);
    expect(byFindAndModify).toMatchObject({ code: 11000, keyPattern: { name: 1 }, keyValue: { name: 'pear' } });
    await things.insertMany([{ _id: 5 as never }, { _id: 6 as never }]);
    expect(await things.insertOne({ _id: 1 as never }).catch((e: unknown) => e)).toMatchObject({
      code: 11000,
      keyPattern: { _id: 1 },
    });
    // An index over values that are not unique cannot be created.
    expect(await things.createIndex({ tags: 1 }, { unique: true }).catch((e: unknown) => e)).toMatchObject({
      code: 11000,
    });
  });

  it('commits and aborts transactions', async () => {
    const session = client.startSession();
    session.startTransaction();
    await things.insertOne({ _id: 10 as never }, { session });
    await things.updateOne({ _id: 1 as never }, { $set: { size: 30 } }, { session });
    await session.commitTransaction();
    session.startTransaction();
    await things.deleteOne({ _id: 10 as never }, { session });
    await things.updateOne({ _id: 1 as never }, { $set: { size: 300 } }, { session });
    await session.abortTransaction();
    await session.endSession();
    expect(await things.countDocuments({ _id: 10 as never })).toBe(1);
    expect((await things.findOne({ _id: 1 as never }))?.size).toBe(30);
  });

  it('aborts a transaction on a write error, as MongoDB does: its later commands fail', async () => {
    const session = client.startSession();
    session.startTransaction();
    await things.insertOne({ _id: 20 as never }, { session });
    expect(await things.insertOne({ _id: 1 as never }, { session }).catch((e: unknown) => e)).toMatchObject({
      code: 11000,
    });
    expect(await things.insertOne({ _id: 21 as never }, { session }).catch((e: unknown) => e)).toMatchObject({
      code: 251,
      codeName: 'NoSuchTransaction',
    });
    await session.abortTransaction().catch(() => undefined);
    await session.endSession();
    expect(await things.countDocuments({ _id: { $in: [20, 21] } as never })).toBe(0);
  });

  it('refuses an index that clashes with one of another name or other options', async () => {
    await things.createIndex({ name: 1 }, { name: 'by_name' });
    await things.createIndex({ name: 1 }, { name: 'by_name' });
    expect(await things.createIndex({ name: 1 }, { name: 'other' }).catch((e: unknown) => e)).toMatchObject({
      code: 85,
    });
    expect(await things.createIndex({ size: 1 }, { name: 'by_name' }).catch((e: unknown) => e)).toMatchObject({
      code: 86,
    });
    await things.dropIndex('by_name');
    expect((await things.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
  });

  it('lets commands on other collections run while a transaction is open; waits on its own', async () => {
    const session = client.startSession();
    session.startTransaction();
    await things.updateOne({ _id: 1 as never }, { $set: { size: 8 } }, { session });
    const others = client.db(`test${run}`).collection('others');
    await others.insertOne({ _id: 1 as never });
    expect(await others.countDocuments()).toBe(1);
    await session.commitTransaction();
    await session.endSession();
  });

  it('starts a second transaction only when the first has ended, even if the first only read', async () => {
    const first = client.startSession();
    const second = client.startSession();
    first.startTransaction();
    await things.findOne({ _id: 1 as never }, { session: first });
    second.startTransaction();
    let started = false;
    const waiting = things.findOne({ _id: 2 as never }, { session: second }).then(() => (started = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toBe(false);
    await first.commitTransaction();
    await waiting;
    await second.commitTransaction();
    await Promise.all([first.endSession(), second.endSession()]);
  });

  it('runs one transaction at a time: others wait for it to end', async () => {
    const session = client.startSession();
    session.startTransaction();
    await things.updateOne({ _id: 1 as never }, { $set: { size: 7 } }, { session });
    let seen: unknown;
    const outside = things.findOne({ _id: 1 as never }).then((d) => (seen = d?.size));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toBeUndefined();
    await session.commitTransaction();
    await outside;
    expect(seen).toBe(7);
    await session.endSession();
  });

  it('fails commands on purpose with the failCommand fail point', async () => {
    const admin = client.db('admin');
    await admin.command({
      configureFailPoint: 'failCommand',
      mode: { times: 1 },
      data: { failCommands: ['find'], errorCode: 8000, namespace: `test${run}.things` },
    });
    expect(await things.findOne({}).catch((e: unknown) => e)).toMatchObject({ code: 8000 });
    expect(await things.findOne({ _id: 2 as never })).toMatchObject({ name: 'apple' });
    await admin.command({ configureFailPoint: 'failCommand', mode: 'off' });
  });

  it('names a command it does not implement', async () => {
    const error = await client
      .db('admin')
      .command({ replSetGetStatus: 1 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 59, codeName: 'CommandNotFound' });
    expect(String((error as Error).message)).toContain("no such command: 'replSetGetStatus'");
  });
});
