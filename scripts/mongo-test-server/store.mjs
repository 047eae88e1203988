// The data of the test server: databases of collections of documents, unique indexes, and one
// transaction at a time. While a session's transaction is open, every other session's commands
// wait (serializable, and simple); aborting undoes the transaction's writes from an undo log.
import { BSON, ObjectId } from 'bson';
import { Aggregator, Query, update as applyUpdate } from 'mingo';

export class CommandError extends Error {
  constructor(code, codeName, message, labels) {
    super(message);
    this.code = code;
    this.codeName = codeName;
    this.labels = labels;
  }
}

/** A document's `_id` as a Map key. */
export function idKey(value) {
  if (value instanceof ObjectId) return `oid:${value.toHexString()}`;
  if (value instanceof Date) return `date:${value.getTime()}`;
  return `${typeof value}:${JSON.stringify(value)}`;
}

/** The value at a dotted path. */
function pathValue(doc, path) {
  let value = doc;
  for (const part of path.split('.')) value = value?.[part];
  return value;
}

export class Collection {
  constructor(name) {
    this.name = name;
    /** idKey → document (documents are never changed in place: updates store new objects). */
    this.docs = new Map();
    this.indexes = [{ name: '_id_', key: { _id: 1 }, unique: true, sparse: false, entries: new Map() }];
  }

  all() {
    return [...this.docs.values()];
  }

  find(filter = {}) {
    // A lookup by `_id` (the engine's commonest) needs no scan.
    const keys = Object.keys(filter);
    const id = filter._id;
    if (
      keys.length === 1 &&
      keys[0] === '_id' &&
      (id === null || typeof id !== 'object' || id instanceof Date || id instanceof ObjectId)
    ) {
      const doc = this.docs.get(idKey(id));
      return doc ? [doc] : [];
    }
    const query = new Query(filter);
    return this.all().filter((doc) => query.test(doc));
  }

  /** The key of `doc` in a unique index, or null when a sparse or partial index leaves it out. */
  indexKey(index, doc) {
    const values = Object.keys(index.key).map((path) => pathValue(doc, path));
    if (index.sparse && values.every((v) => v === undefined)) return null;
    if (index.partial && !index.partial.test(doc)) return null;
    return JSON.stringify(values.map((v) => (v === undefined ? null : v instanceof ObjectId ? v.toHexString() : v)));
  }

  /** Throws a duplicate key error when `doc` (replacing `previous`) collides in a unique index. */
  checkUnique(doc, previous) {
    const own = previous ? idKey(previous._id) : idKey(doc._id);
    for (const index of this.indexes) {
      if (!index.unique) continue;
      const key = this.indexKey(index, doc);
      if (key === null) continue;
      const holder = index.entries.get(key);
      if (holder !== undefined && holder !== own) {
        const keyValue = Object.fromEntries(Object.keys(index.key).map((p) => [p, pathValue(doc, p) ?? null]));
        const error = new CommandError(
          11000,
          'DuplicateKey',
          `E11000 duplicate key error collection: ${this.name} index: ${index.name} dup key: ${JSON.stringify(keyValue)}`,
        );
        error.keyPattern = index.key;
        error.keyValue = keyValue;
        throw error;
      }
    }
  }

  /** Stores `doc` under its id (or removes the document when `doc` is undefined), keeping the indexes. */
  put(key, doc) {
    const previous = this.docs.get(key);
    for (const index of this.indexes) {
      if (previous) {
        const old = this.indexKey(index, previous);
        if (old !== null && index.entries.get(old) === key) index.entries.delete(old);
      }
      if (doc) {
        const next = this.indexKey(index, doc);
        if (next !== null) index.entries.set(next, key);
      }
    }
    if (doc) this.docs.set(key, doc);
    else this.docs.delete(key);
    return previous;
  }

  createIndex(spec) {
    // Every collection has its `_id` index; asking for it again changes nothing.
    if (JSON.stringify(spec.key) === '{"_id":1}') return false;
    const sameKey = (index) => JSON.stringify(index.key) === JSON.stringify(spec.key);
    const options = (index) =>
      `${Boolean(index.unique)}/${Boolean(index.sparse)}/${JSON.stringify(index.partialFilterExpression ?? null)}`;
    const named = this.indexes.find((i) => i.name === spec.name);
    // As MongoDB: the same index again is nothing; another index under a taken name or key is an error.
    if (named && sameKey(named) && options(named) === options(spec)) return false;
    if (named)
      throw new CommandError(
        86,
        'IndexKeySpecsConflict',
        `an index named ${spec.name} exists with other options or keys`,
      );
    const keyed = this.indexes.find(sameKey);
    if (keyed)
      throw new CommandError(
        85,
        'IndexOptionsConflict',
        `an index on ${JSON.stringify(spec.key)} exists with another name: ${keyed.name}`,
      );
    const index = {
      name: spec.name,
      key: spec.key,
      unique: Boolean(spec.unique),
      sparse: Boolean(spec.sparse),
      // A partial index holds only the documents its filter matches (svcgen's: `$exists` on each key).
      ...(spec.partialFilterExpression
        ? { partialFilterExpression: spec.partialFilterExpression, partial: new Query(spec.partialFilterExpression) }
        : {}),
      entries: new Map(),
    };
    for (const [key, doc] of this.docs) {
      const entry = this.indexKey(index, doc);
      if (entry === null) continue;
      if (index.unique && index.entries.has(entry)) {
        throw new CommandError(
          11000,
          'DuplicateKey',
          `E11000 duplicate key error collection: ${this.name} index: ${spec.name}`,
        );
      }
      index.entries.set(entry, key);
    }
    this.indexes.push(index);
    return true;
  }
}

export class Store {
  constructor() {
    /** database name → collection name → Collection */
    this.databases = new Map();
    /** The open transaction: { session, txnNumber, undo: [collection, key, previous][] } */
    this.transaction = null;
    /** True while a command of the open transaction runs (its writes go to the undo log). */
    this.recording = false;
    this.waiting = [];
  }

  collection(db, name, create = true) {
    let database = this.databases.get(db);
    if (!database) {
      if (!create) return undefined;
      this.databases.set(db, (database = new Map()));
    }
    let collection = database.get(name);
    if (!collection && create) database.set(name, (collection = new Collection(`${db}.${name}`)));
    return collection;
  }

  /** Writes through the undo log of the transaction running the command, so that an abort can take it back. */
  put(collection, key, doc) {
    const previous = collection.put(key, doc);
    if (this.recording) {
      this.transaction.undo.push([collection, key, previous]);
      this.transaction.written.add(collection);
    }
  }

  insert(collection, doc) {
    const stored = doc._id === undefined ? { _id: new ObjectId(), ...doc } : doc;
    const key = idKey(stored._id);
    if (collection.docs.has(key)) {
      const error = new CommandError(
        11000,
        'DuplicateKey',
        `E11000 duplicate key error collection: ${collection.name} index: _id_ dup key: { _id: ${JSON.stringify(stored._id)} }`,
      );
      error.keyPattern = { _id: 1 };
      error.keyValue = { _id: stored._id };
      throw error;
    }
    collection.checkUnique(stored);
    this.put(collection, key, stored);
    return stored;
  }

  replace(collection, previous, next) {
    const doc = { ...next, _id: previous._id };
    collection.checkUnique(doc, previous);
    this.put(collection, idKey(previous._id), doc);
    return doc;
  }

  /** `u`: update operators, an update pipeline (an array of stages), or a replacement document. */
  modify(collection, previous, u) {
    if (Array.isArray(u)) return this.replace(collection, previous, new Aggregator(u).run([previous])[0]);
    const isOperators = Object.keys(u).some((k) => k.startsWith('$'));
    if (!isOperators) return this.replace(collection, previous, u);
    // A copy through BSON keeps BSON values (Binary, ObjectId), which structuredClone would not.
    const copy = BSON.deserialize(BSON.serialize(previous), {
      promoteLongs: true,
      promoteValues: true,
      promoteBuffers: false,
    });
    applyUpdate(copy, u, undefined, undefined, { cloneMode: 'deep' });
    return this.replace(collection, previous, copy);
  }

  remove(collection, doc) {
    this.put(collection, idKey(doc._id), undefined);
  }

  // --- transactions and the lock ----------------------------------------------------------------

  /**
   * Runs `work` (synchronous) when the command may: at once when no transaction is open, or it is
   * the command's own, or it is outside any transaction and touches no collection the open one
   * has written (what it reads there is then committed data, as in MongoDB); else after that
   * transaction ends — one transaction at a time. Transactions idle for 10 s are aborted (a
   * crashed client).
   */
  async withTurn(session, collection, transactional, work) {
    const started = Date.now();
    for (;;) {
      const open = this.transaction;
      if (!open || open.session === session) break;
      if (!transactional && collection && !open.written.has(collection)) break;
      if (Date.now() - open.touched > 10_000) this.abort();
      else if (Date.now() - started > 10_000)
        throw new CommandError(24, 'LockTimeout', 'waited 10 s for another transaction');
      else await new Promise((resolve) => this.waiting.push(resolve) && setTimeout(resolve, 100));
    }
    try {
      return work();
    } finally {
      this.recording = false;
    }
  }

  /** From now until the command ends, its writes belong to the open transaction. */
  record() {
    this.transaction.touched = Date.now();
    this.recording = true;
  }

  begin(session, txnNumber) {
    this.transaction = { session, txnNumber, undo: [], written: new Set(), touched: Date.now() };
  }

  commit() {
    this.transaction = null;
    this.wake();
  }

  abort() {
    const undo = this.transaction?.undo ?? [];
    for (let i = undo.length - 1; i >= 0; i--) {
      const [collection, key, previous] = undo[i];
      collection.put(key, previous);
    }
    this.transaction = null;
    this.recording = false;
    this.wake();
  }

  wake() {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
