/**
 * The MongoDB engine's `ServiceDatabase` (engine = svc_mongodb, mongodb.url): the repositories of
 * every model on the official driver, the migrations' MongoDB steps applied and the indexes
 * created at start-up, and transactions.
 *
 * Transactions need a replica set or a sharded cluster (a single-member replica set will do).
 * On a standalone server there are none: each write is atomic by itself, but a request's writes
 * and its handlers' are not undone together when something fails — the service says so at
 * start-up. Inside a transaction, a write conflict with another request runs the whole
 * transaction again (its handlers too), as MongoDB advises.
 */
import { MongoClient, type ClientSession, type Db } from 'mongodb';
import { repositoryByName, type RepositoryFactory, type ServiceDatabase } from '../database.js';
import type { FieldSpec, Model, ModelRegistry } from '../model.js';
import { ConfigError, type DatabaseTimeouts } from '../config.js';
import type { Migration } from '../migrate.js';
import {
  collectionExists,
  isSvcgenIndex,
  SEARCH_INDEX,
  svcgenIndex,
  uniqueTogetherIndex,
  type IndexKind,
} from './indexes.js';
import { migrateMongo } from './migrate.js';
import { COUNTERS, MongoRepository, type MongoContext } from './repository.js';
import { documentPath } from './values.js';
import { appendMongo, MongoEventLog } from '../outbox/mongo-log.js';
import { EVENT_SEQUENCE, EVENTS } from '../outbox/schema.js';
import { ensureMongoOutbox, MongoDeliveryStore } from '../webhooks/mongo-store.js';

export interface MongoOptions {
  /** Called with every command the service sends (server.ts logs them at level debug). */
  readonly onQuery?: (statement: string) => void;
  /** Called once at start-up when the server cannot run transactions. */
  readonly onWarning?: (message: string) => void;
  /** Called with the names of the migrations applied at this start, when there were any. */
  readonly onMigrated?: (names: readonly string[]) => void;
  /** How long a command waits for a reachable server before it fails (a 503): database.connect_timeout. */
  readonly timeouts?: DatabaseTimeouts;
}

const ATTEMPTS = 3;

export async function openMongo<R extends object>(
  url: string,
  models: ModelRegistry,
  migrations: readonly Migration[],
  make: RepositoryFactory<R>,
  options: MongoOptions = {},
): Promise<ServiceDatabase<R> & R> {
  const client = new MongoClient(url, {
    monitorCommands: Boolean(options.onQuery),
    serverSelectionTimeoutMS: options.timeouts?.connect ?? 5_000,
  });
  if (options.onQuery) {
    const log = options.onQuery;
    client.on('commandStarted', (e) => log(`${e.databaseName}.${e.commandName} ${JSON.stringify(e.command)}`));
  }
  try {
    await client.connect();
    const db = client.db();
    const transactions = await supportsTransactions(db);
    if (!transactions) {
      (options.onWarning ?? ((message: string) => process.emitWarning(message)))(
        `${url.replace(/\/\/[^@/]*@/, '//')} runs no transactions (a standalone server): a failed request may leave some of its writes; use a replica set`,
      );
    }
    // First the migrations (a renamed field, a dropped index), then the indexes the models want now.
    const applied = await migrateMongo(db, models, migrations);
    if (applied.length) options.onMigrated?.(applied);
    await createIndexes(db, models);
    await ensureMongoOutbox(db);
    return mongoDatabase(client, db, models, make, transactions);
  } catch (error) {
    await client.close();
    throw error;
  }
}

function mongoDatabase<R extends object>(
  client: MongoClient,
  db: Db,
  models: ModelRegistry,
  make: RepositoryFactory<R>,
  transactions: boolean,
): ServiceDatabase<R> & R {
  const outbox = { log: new MongoEventLog(db), deliveries: new MongoDeliveryStore(db) };
  const bind = (session: ClientSession | undefined): ServiceDatabase<R> & R => {
    const ctx: MongoContext = {
      db,
      models,
      ...(session ? { session } : {}),
      transaction: (work) => (session || !transactions ? work(ctx) : inTransaction(client, (s) => work(contextOf(s)))),
    };
    const contextOf = (s: ClientSession): MongoContext => ({
      ...ctx,
      session: s,
      transaction: (work) => work(contextOf(s)),
    });
    const repositories = make({
      repository: <T extends object, C, U>(model: Model<T>) => new MongoRepository<T, C, U>(model, ctx),
    });
    const database: ServiceDatabase<R> = {
      engine: 'svc_mongodb',
      models,
      repository: repositoryByName(repositories),
      transaction: (work) => (session || !transactions ? work(bound) : inTransaction(client, (s) => work(bind(s)))),
      appendEvents: (events) => appendMongo(db, session, events),
      outbox,
      ping: async () => void (await db.command({ ping: 1 })),
      close: () => client.close(),
    };
    const bound = Object.assign(database, repositories);
    return bound;
  };
  return bind(undefined);
}

/** Runs `work` in a new transaction, again when MongoDB says the failure was transient. */
async function inTransaction<T>(client: MongoClient, work: (session: ClientSession) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const session = client.startSession();
    try {
      session.startTransaction();
      const result = await work(session);
      await session.commitTransaction();
      return result;
    } catch (error) {
      if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
      const transient = (error as { hasErrorLabel?: (l: string) => boolean }).hasErrorLabel?.(
        'TransientTransactionError',
      );
      if (!transient || attempt >= ATTEMPTS) throw error;
    } finally {
      await session.endSession();
    }
  }
}

async function supportsTransactions(db: Db): Promise<boolean> {
  const hello = await db.admin().command({ hello: 1 });
  return Boolean(hello['setName']) || hello['msg'] === 'isdbgrid';
}

/**
 * Unique fields get unique indexes (sparse: objects without a value do not collide), and so do
 * `_unique_together` sets (partial: an object with any of the fields null is in none), links and
 * fields marked `index` plain ones, searched models one on their words. svcgen's indexes the model no longer wants (a field no longer unique) are dropped first.
 */
async function createIndexes(db: Db, models: ModelRegistry): Promise<void> {
  // Collections exist before any transaction writes to them (older servers cannot create them inside one).
  for (const name of [COUNTERS, EVENTS, EVENT_SEQUENCE, ...[...models.values()].map((m) => m.table)])
    await ensureCollection(db, name);
  for (const model of models.values()) {
    const collection = db.collection(model.table);
    const wanted: { key: Record<string, 1>; name: string }[] = model.columns.flatMap((f) => {
      const kind = indexKind(f);
      return kind ? [svcgenIndex(documentPath(model, f.column!), kind)] : [];
    });
    for (const set of model.uniqueTogether ?? [])
      wanted.push(uniqueTogetherIndex(set.map((name) => documentPath(model, model.field(name)!.column!))));
    if (model.searchFields.length) wanted.push(SEARCH_INDEX);
    const existing = await collection
      .listIndexes()
      .toArray()
      .catch(() => []);
    for (const index of existing) {
      const same = wanted.find((w) => w.name === index['name']);
      const changed = !same || JSON.stringify(same.key) !== JSON.stringify(index['key']);
      if (changed && isSvcgenIndex(index['name'])) await collection.dropIndex(String(index['name']));
    }
    try {
      if (wanted.length) await collection.createIndexes(wanted);
    } catch (error) {
      throw new ConfigError(
        `cannot create the indexes of ${model.table} on MongoDB: ${(error as Error).message} (values that must be unique are not)`,
      );
    }
  }
}

/** svcgen's index of a field, if it has one: unique, a link's, or one the schema asked for; the key has its own. */
function indexKind(field: FieldSpec): IndexKind | undefined {
  if (field.primaryKey) return undefined;
  if (field.unique) return 'unique';
  if (field.type === 'foreign_key') return 'link';
  return field.index ? 'svc_index' : undefined;
}

async function ensureCollection(db: Db, name: string): Promise<void> {
  if (await collectionExists(db, name)) return;
  try {
    await db.createCollection(name);
  } catch (error) {
    // Another instance starting at the same moment created it first (NamespaceExists).
    if ((error as { code?: number }).code !== 48) throw error;
  }
}
