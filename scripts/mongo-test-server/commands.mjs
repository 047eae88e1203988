// The commands the official driver sends for svcgen's repositories and tests, answered from the
// store. Anything else is a CommandNotFound error that names the command, so a missing one shows.
import { Aggregator, find as mingoFind, Query } from 'mingo';
import { CommandError } from './store.mjs';

const MAX_WIRE_VERSION = 17; // MongoDB 6.0

export function handshake(server) {
  // A one-member replica set: the driver then offers sessions and transactions. Without a
  // replica set name, a standalone server (sessions, no transactions).
  const replicaSet = server.replicaSet
    ? {
        setName: server.replicaSet,
        setVersion: 1,
        hosts: [server.address],
        primary: server.address,
        me: server.address,
      }
    : {};
  return {
    ismaster: true,
    isWritablePrimary: true,
    helloOk: true,
    secondary: false,
    ...replicaSet,
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: server.connections,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

/** `{ commandName: (command, context) => reply }` */
export const COMMANDS = {
  hello: (_, { server }) => handshake(server),
  ismaster: (_, { server }) => handshake(server),
  isMaster: (_, { server }) => handshake(server),
  ping: () => ({ ok: 1 }),
  /** MongoDB's test command (servers started with enableTestCommands): makes commands fail on purpose. */
  configureFailPoint(command, { server }) {
    if (command.configureFailPoint !== 'failCommand')
      throw new CommandError(2, 'BadValue', `unknown fail point ${command.configureFailPoint}`);
    const mode = command.mode;
    server.failPoint =
      mode === 'off' ? null : { ...command.data, remaining: typeof mode === 'object' ? mode.times : Infinity };
    return { ok: 1 };
  },
  buildInfo: () => ({ version: '6.0.0-svcgen-test', versionArray: [6, 0, 0, 0], ok: 1 }),
  endSessions: () => ({ ok: 1 }),
  killCursors: (command) => ({ cursorsKilled: command.cursors ?? [], ok: 1 }),
  commitTransaction: (_, { store }) => {
    store.commit();
    return { ok: 1 };
  },
  abortTransaction: (_, { store }) => {
    store.abort();
    return { ok: 1 };
  },

  find(command, { store, db }) {
    const collection = store.collection(db, command.find, false);
    let cursor = mingoFind(collection ? collection.find(command.filter ?? {}) : [], {}, command.projection);
    if (command.sort && Object.keys(command.sort).length) cursor = cursor.sort(command.sort);
    if (command.skip) cursor = cursor.skip(command.skip);
    if (command.limit) cursor = cursor.limit(Math.abs(command.limit));
    return cursorReply(db, command.find, cursor.all());
  },

  getMore: (command, { db }) => ({ cursor: { id: 0n, ns: `${db}.${command.collection}`, nextBatch: [] }, ok: 1 }),

  aggregate(command, { store, db }) {
    const collection = store.collection(db, command.aggregate, false);
    const result = new Aggregator(command.pipeline ?? []).run(collection ? collection.all() : []);
    return cursorReply(db, command.aggregate, result);
  },

  count(command, { store, db }) {
    const collection = store.collection(db, command.count, false);
    return { n: collection ? collection.find(command.query ?? {}).length : 0, ok: 1 };
  },

  distinct(command, { store, db }) {
    const collection = store.collection(db, command.distinct, false);
    const seen = new Map();
    for (const doc of collection ? collection.find(command.query ?? {}) : []) {
      const value = doc[command.key];
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) seen.set(JSON.stringify(v), v);
    }
    return { values: [...seen.values()], ok: 1 };
  },

  insert(command, { store, db }) {
    const collection = store.collection(db, command.insert);
    return writeEach(
      command.documents ?? [],
      (doc) => {
        store.insert(collection, doc);
        return { n: 1 };
      },
      store,
      command.ordered !== false,
    );
  },

  update(command, { store, db }) {
    const collection = store.collection(db, command.update);
    const upserted = [];
    let modified = 0;
    const reply = writeEach(
      command.updates ?? [],
      (spec, index) => {
        const matches = collection.find(spec.q ?? {});
        const targets = spec.multi ? matches : matches.slice(0, 1);
        if (targets.length === 0 && spec.upsert) {
          const doc = store.modify(collection, store.insert(collection, equalities(spec.q)), spec.u);
          upserted.push({ index, _id: doc._id });
          return { n: 1 };
        }
        for (const doc of targets) {
          store.modify(collection, doc, spec.u);
          modified++;
        }
        return { n: targets.length };
      },
      store,
    );
    return { ...reply, nModified: modified, ...(upserted.length ? { upserted } : {}) };
  },

  delete(command, { store, db }) {
    const collection = store.collection(db, command.delete);
    return writeEach(
      command.deletes ?? [],
      (spec) => {
        const matches = collection.find(spec.q ?? {});
        const targets = spec.limit === 1 ? matches.slice(0, 1) : matches;
        for (const doc of targets) store.remove(collection, doc);
        return { n: targets.length };
      },
      store,
    );
  },

  findAndModify(command, { store, db }) {
    const collection = store.collection(db, command.findAndModify);
    let matches = collection.find(command.query ?? {});
    if (command.sort) matches = mingoFind(matches, {}).sort(command.sort).all();
    const found = matches[0];
    if (command.remove) {
      if (found) store.remove(collection, found);
      return { lastErrorObject: { n: found ? 1 : 0 }, value: found ?? null, ok: 1 };
    }
    if (!found && !command.upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
    const before = found ?? store.insert(collection, equalities(command.query));
    const after = store.modify(collection, before, command.update ?? {});
    return {
      lastErrorObject: { n: 1, updatedExisting: Boolean(found), ...(found ? {} : { upserted: after._id }) },
      value: command.new ? after : (found ?? null),
      ok: 1,
    };
  },

  createIndexes(command, { store, db }) {
    const collection = store.collection(db, command.createIndexes);
    const before = collection.indexes.length;
    for (const spec of command.indexes ?? []) collection.createIndex(spec);
    return {
      createdCollectionAutomatically: false,
      numIndexesBefore: before,
      numIndexesAfter: collection.indexes.length,
      ok: 1,
    };
  },

  dropIndexes(command, { store, db }) {
    const collection = store.collection(db, command.dropIndexes, false);
    const names =
      command.index === '*'
        ? (collection?.indexes.filter((i) => i.name !== '_id_').map((i) => i.name) ?? [])
        : [command.index];
    if (collection) collection.indexes = collection.indexes.filter((i) => !names.includes(i.name));
    return { nIndexesWas: collection?.indexes.length ?? 0, ok: 1 };
  },

  listIndexes(command, { store, db }) {
    const collection = store.collection(db, command.listIndexes, false);
    if (!collection) throw new CommandError(26, 'NamespaceNotFound', `ns does not exist: ${db}.${command.listIndexes}`);
    return cursorReply(
      db,
      command.listIndexes,
      collection.indexes.map(({ name, key, unique, sparse, partialFilterExpression }) => ({
        v: 2,
        key,
        name,
        ...(unique ? { unique } : {}),
        ...(sparse ? { sparse } : {}),
        ...(partialFilterExpression ? { partialFilterExpression } : {}),
      })),
    );
  },

  create(command, { store, db }) {
    if (store.collection(db, command.create, false))
      throw new CommandError(48, 'NamespaceExists', `Collection ${db}.${command.create} already exists.`);
    store.collection(db, command.create);
    return { ok: 1 };
  },

  listCollections(command, { store, db }) {
    const names = [...(store.databases.get(db)?.keys() ?? [])];
    const query = new Query(command.filter ?? {});
    return cursorReply(
      db,
      '$cmd.listCollections',
      names
        .map((name) => ({ name, type: 'collection', options: {}, info: { readOnly: false } }))
        .filter((c) => query.test(c)),
    );
  },

  /** Sent to the admin database with namespaces (`db.collection`); the collection keeps its documents and indexes. */
  renameCollection(command, { store }) {
    const from = namespace(command.renameCollection);
    const to = namespace(command.to);
    const source = store.collection(from.db, from.name, false);
    if (!source)
      throw new CommandError(26, 'NamespaceNotFound', `Source collection ${command.renameCollection} does not exist`);
    if (store.collection(to.db, to.name, false) && !command.dropTarget)
      throw new CommandError(48, 'NamespaceExists', `target namespace ${command.to} exists`);
    store.databases.get(from.db).delete(from.name);
    if (!store.databases.has(to.db)) store.databases.set(to.db, new Map());
    source.name = command.to;
    store.databases.get(to.db).set(to.name, source);
    return { ok: 1 };
  },

  drop(command, { store, db }) {
    store.databases.get(db)?.delete(command.drop);
    return { ok: 1 };
  },

  dropDatabase(_, { store, db }) {
    store.databases.delete(db);
    return { ok: 1 };
  },
};

/** `db.collection` (the collection's name may hold dots). */
function namespace(text) {
  const dot = String(text).indexOf('.');
  if (dot <= 0) throw new CommandError(73, 'InvalidNamespace', `invalid namespace: ${text}`);
  return { db: text.slice(0, dot), name: text.slice(dot + 1) };
}

function cursorReply(db, collection, documents) {
  return { cursor: { id: 0n, ns: `${db}.${collection}`, firstBatch: documents }, ok: 1 };
}

/**
 * Each statement in turn. A duplicate key is a write error: ordered writes stop at the first,
 * unordered ones (`ordered: false`) go on with the next statement; in a transaction, the first
 * aborts it, as MongoDB does.
 */
function writeEach(statements, write, store, ordered = true) {
  let n = 0;
  const writeErrors = [];
  for (let index = 0; index < statements.length; index++) {
    try {
      n += write(statements[index], index).n;
    } catch (error) {
      if (!(error instanceof CommandError) || error.code !== 11000) throw error;
      writeErrors.push({
        index,
        code: error.code,
        errmsg: error.message,
        keyPattern: error.keyPattern,
        keyValue: error.keyValue,
      });
      if (store?.recording) {
        store.abort();
        break;
      }
      if (ordered) break;
    }
  }
  return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
}

/** The fields an upsert's query sets: its plain equalities. */
function equalities(query = {}) {
  const doc = {};
  for (const [key, value] of Object.entries(query)) {
    if (key.startsWith('$') || key.includes('.')) continue;
    if (
      value === null ||
      typeof value !== 'object' ||
      value instanceof Date ||
      !Object.keys(value).some((k) => k.startsWith('$'))
    )
      doc[key] = value;
  }
  return doc;
}
