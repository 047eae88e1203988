/** The storage the service runs on, whatever the engine (chosen in service.ini). */
import { HttpError } from './errors.js';
import type { Model, ModelRegistry } from './model.js';
import type { FindManyArgs, Include, Repository, Where } from './repository.js';
import type { EventAction, EventLog, NewEvent } from './outbox/types.js';
import type { DeliveryStore } from './webhooks/types.js';

type Rec = Record<string, unknown>;

/** A repository plus what the HTTP layer needs to address objects by key. */
export interface EngineRepository<T = Rec, Create = Partial<T>, Update = Partial<T>> extends Repository<
  T,
  Create,
  Update
> {
  readonly model: Model<T>;
  /** The key as the database compares it; undefined when it cannot be one (`abc` for an integer key). */
  keyValue(key: unknown): unknown;
  /** Whether nulls sort after every value in ascending order (PostgreSQL), not before (SQLite, MongoDB). */
  readonly nullsLast: boolean;
  /** The keys of the objects that match, in key order. */
  keys(where?: Where<T>): Promise<unknown[]>;
  /**
   * Inside a transaction: no other transaction changes the object until this one ends (read it
   * after this, to change it from what it is now).
   */
  lockForUpdate(key: unknown): Promise<void>;
  /**
   * Inside a transaction, before the objects `keys` are deleted: no other transaction links a new
   * object to them until this one ends (PostgreSQL: `FOR UPDATE`, which a foreign key's check of
   * the insert waits on; then the insert finds them gone). A delete that reads what it takes along
   * first, then deletes, would otherwise take a child inserted in between unread: unjudged, and with
   * no event. True when it locked them (as `lockForUpdates`).
   */
  lockForDelete(keys: readonly unknown[]): Promise<boolean>;
  /**
   * Inside a transaction, before the objects `keys` are changed: no other transaction changes them
   * until this one ends, and those it changed since they were read are read again after this.
   * True when it locked them (PostgreSQL); false where nothing else writes meanwhile (SQLite: the
   * write's transaction is the only writer) or nothing is locked (MongoDB).
   */
  lockForUpdates(keys: readonly unknown[]): Promise<boolean>;
  /**
   * For a model of counts in time windows (a text key, a count field and a datetime field where
   * its window ends): one more on each of `counters`, one atomic step per counter whatever runs
   * beside it (an upsert), so that the work is the same whether its object exists or not. A
   * counter with no object, or whose window ended by `now`, starts over at 1 until its `ends`.
   * Gives each counter's count and end after it, in the order given.
   */
  countInWindows(
    fields: WindowFields,
    counters: readonly WindowCounter[],
    now: Date,
  ): Promise<{ readonly count: number; readonly ends: Date }[]>;
  /**
   * Deletes at most `limit` of the counts of `countInWindows` whose window ended before `before`,
   * by the index on their end, in one statement: how many it deleted.
   */
  forgetWindows(fields: WindowFields, before: Date, limit: number): Promise<number>;
  /**
   * Writes of `action` that append their event (lib/outbox/) with them as one step, for a write
   * that is all a request does (no transaction around it); undefined where the engine cannot for
   * this model. `inTime` throws once the request's time is up: called before the step commits.
   */
  recordedWrites?(action: EventAction, inTime: () => void): RecordedWrites | undefined;
  /**
   * The first object `where` selects, with the object of `other` whose field `link` holds its key
   * as text (null: none), read together; undefined where the engine cannot for this condition
   * (read one, then the other).
   */
  findFirstWithLinked?(
    where: Where<T>,
    other: EngineRepository,
    link: string,
  ): Promise<{ found: T; linked: Rec | null } | null | undefined>;
  /**
   * A page and the number of all the objects its conditions select, read together where the engine
   * can (SQL: a page of the whole collection, or one filtered by plain conditions). Undefined,
   * having read nothing, where it cannot; `total` undefined when the page had no row to carry it
   * (count them).
   */
  findManyWithTotal?(args: FindManyArgs<T>): Promise<{ records: T[]; total: number | undefined } | undefined>;
}

/** The fields of a model of counts in windows (`EngineRepository.countInWindows`). */
export interface WindowFields {
  readonly count: string;
  readonly ends: string;
}

/** A counter of `countInWindows`: its object's key, and when its window ends if one starts now. */
export interface WindowCounter {
  readonly key: string;
  readonly ends: Date;
}

/** The relationships a read's `include` names. */
type IncludedBy<A> = A extends { readonly include?: infer I } ? keyof NonNullable<I> : never;

/**
 * An object as a read gives it: without `Linked`, the relationships kept in other models' rows (a
 * to-many list, the key of a one-to-one partner), but for those its `include` names. Read without
 * them, they are not there, and the type says so (a probe's script read a partner's key that
 * was never read, and billed nothing).
 */
export type ReadObject<T, Linked extends keyof T, A> = [Linked] extends [never]
  ? T
  : Omit<T, Exclude<Linked, IncludedBy<A>>>;

/**
 * A model's repository as its code is given it (src/repositories/): an engine's repository whose
 * reads and writes give what they read, as `ReadObject` says.
 */
export type ModelRepository<T, Create, Update, Linked extends keyof T> = Omit<
  EngineRepository<T, Create, Update>,
  'findMany' | 'findFirst' | 'findUnique' | 'create' | 'update' | 'delete'
> & {
  findMany<A extends FindManyArgs<T> = Record<never, never>>(args?: A): Promise<ReadObject<T, Linked, A>[]>;
  findFirst<A extends FindManyArgs<T> = Record<never, never>>(args?: A): Promise<ReadObject<T, Linked, A> | null>;
  findUnique<A extends { where: Partial<T>; include?: Include<T>; select?: FindManyArgs<T>['select'] }>(
    args: A,
  ): Promise<ReadObject<T, Linked, A> | null>;
  create<A extends { data: Create; include?: Include<T> }>(args: A): Promise<ReadObject<T, Linked, A>>;
  /** Throws `RecordNotFound` when nothing matches. */
  update<A extends { where: Partial<T>; data: Update; include?: Include<T> }>(
    args: A,
  ): Promise<ReadObject<T, Linked, A>>;
  /** Throws `RecordNotFound` when nothing matches. */
  delete(args: { where: Partial<T> }): Promise<ReadObject<T, Linked, Record<never, never>>>;
};

/** Writes of one object that append their event (lib/outbox/) with them, all or nothing. */
export interface RecordedWrites {
  create(args: { data: Rec; include?: Include<Rec> }): Promise<Rec>;
  update(args: { where: Rec; data: Rec; include?: Include<Rec> }, action: 'update' | 'replace'): Promise<Rec>;
  /**
   * `before`: the object as the caller read it, for an engine that does not read it in the
   * statement; undefined when the caller wrote by key alone (its event is then the deleted row).
   */
  delete(args: { where: Rec }, before: Rec | undefined): Promise<void>;
}

/**
 * Another value once a row of some tables was written; undefined: cannot tell now (read them).
 * SQLite says at once; PostgreSQL after a statement (lib/sql/pg-table-versions.ts).
 */
export type TableVersion = () => string | undefined | Promise<string | undefined>;

/** Makes the repository of a model on one engine (and, inside a transaction, bound to it). */
export interface Engine {
  repository<T extends object, Create, Update>(model: Model<T>): EngineRepository<T, Create, Update>;
}

/** The typed repositories of every model (src/db/index.ts), made on an engine. */
export type RepositoryFactory<R> = (engine: Engine) => R;

/** `R`: the typed repositories the generated `Database` adds, also inside transactions. */
export interface ServiceDatabase<R = unknown> {
  readonly engine: 'svc_sqla' | 'svc_mongodb';
  readonly models: ModelRegistry;
  repository(model: string): EngineRepository;
  /** Runs `work` in one transaction; `work` gets the database bound to it. */
  transaction<T>(work: (db: ServiceDatabase<R> & R) => Promise<T>): Promise<T>;
  /** Appends events to the outbox: inside `transaction`, in it (lib/outbox/). */
  appendEvents(events: readonly NewEvent[]): Promise<void>;
  /** The outbox's events and the webhooks' deliveries, read and changed outside any request. */
  readonly outbox: { readonly log: EventLog; readonly deliveries: DeliveryStore };
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * A version of the rows of the models' tables: another value once any of them was written
   * (lib/sql/table-versions.ts, pg-table-versions.ts); the version itself is undefined while
   * SQLite's writer is inside a transaction, or where PostgreSQL's triggers could not be made.
   * None on MongoDB, and none on a database bound to a transaction.
   */
  watch?(models: readonly string[]): TableVersion | undefined;
}

/** `ServiceDatabase.repository(name)` over the typed repositories an engine made. */
export function repositoryByName(repositories: object): (model: string) => EngineRepository {
  const byModel = new Map((Object.values(repositories) as EngineRepository[]).map((r) => [r.model.name, r]));
  return (model) => {
    const repository = byModel.get(model);
    if (!repository) throw new Error(`no repository for model ${model}`);
    return repository;
  };
}

/**
 * PostgreSQL's SQLSTATEs of a server that is going away, not taking connections, cancelled a slow
 * statement, or kept failing a transaction on contention (serialization, deadlock) however often
 * it was run again (lib/sql/executor.ts).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '40001', '40P01']);
/** Socket errors of a server that cannot be reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLite: another connection held the database longer than the busy timeout. */
const BUSY = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED']);
/** The MongoDB driver's errors for a server it cannot reach or lost. */
const MONGO_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
]);
/** node-postgres says these in words only. */
// The last: PostgreSQL's 55000 when a database is closed to connections (`alter database … allow_connections
// false`, during maintenance); the code alone is any object not in the state a statement needs.
const PG_CONNECTION_LOST =
  /timeout exceeded when trying to connect|Connection terminated|is not queryable|is not currently accepting connections/;

/** `error` and what caused it, five deep at most (a driver's error wrapped by Kysely, by a repository). */
function* causes(error: unknown): Generator<{ code?: unknown; name?: unknown; message?: unknown }> {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e;
    e = (e as { cause?: unknown }).cause;
  }
}

/**
 * PostgreSQL's connection exceptions (class 08), but protocol_violation (08P01): a statement the
 * server could not take (65,536 parameters), which no retry mends, was answered as an outage.
 */
function connectionLost(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) && code !== '08P01';
}

/**
 * Whether `error` (or what caused it) says the database is down, unreachable or overloaded rather
 * than that the request was wrong: the service answers 503 with Retry-After, and carries on; the
 * drivers reconnect by themselves when the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, name, message } of causes(error)) {
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_STATES.has(code) || connectionLost(code) || UNREACHABLE.has(code) || BUSY.has(code))
    )
      return true;
    if (typeof name === 'string' && MONGO_UNAVAILABLE.has(name)) return true;
    if (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) return true;
  }
  return false;
}

/**
 * Whether `error` (or what caused it) says a table or column the service asks for is not in the
 * database: the database is another version's (`npm run migrate` of a newer one, while this one
 * still runs: a probe's old instance answered 500 to every request until it was restarted), or
 * was changed behind the service's back. PostgreSQL's undefined_table and undefined_column;
 * SQLite's "no such table/column".
 */
export function isSchemaMismatch(error: unknown): boolean {
  for (const { code, message } of causes(error)) {
    if (code === '42P01' || code === '42703') return true;
    if (code === 'SQLITE_ERROR' && typeof message === 'string' && /^no such (table|column)/.test(message)) return true;
  }
  return false;
}

/**
 * Every pooled connection to the database stayed busy for the whole connect timeout: the service
 * has more work at once than its connections carry. Answered 503, as the service's load, not as a
 * database that does not answer (`isDatabaseBusy`).
 */
export class DatabaseBusy extends Error {
  constructor(cause: Error) {
    super('every connection to the database stayed busy for the connect timeout', { cause });
    this.name = 'DatabaseBusy';
  }
}

/**
 * A statement through a transaction that has ended: code left running past its request's time (an
 * event handler nobody waits for any more, lib/http/deadline.ts) writes nothing, neither outside a
 * transaction nor in another request's.
 */
export class TransactionEnded extends Error {
  constructor() {
    super(
      'the transaction has ended (its request took longer than http.handler_timeout): nothing more is written in it',
    );
    this.name = 'TransactionEnded';
  }
}

/** Whether `error` is (or was caused by) `DatabaseBusy`. */
export function isDatabaseBusy(error: unknown): boolean {
  for (const cause of causes(error)) if (cause instanceof DatabaseBusy) return true;
  return false;
}

/** The answer while every connection is busy: 503, with a short Retry-After. */
export function databaseBusy(): HttpError {
  return new HttpError(
    503,
    'the service is busy (every database connection is in use); try again in a moment',
    undefined,
    {
      'retry-after': '1',
    },
  );
}

/** The answer while the database is another version's: 503, for a load balancer to try another instance. */
export function databaseMismatch(): HttpError {
  return new HttpError(
    503,
    'the service does not match its database (an upgrade may be under way); try again in a moment',
    undefined,
    { 'retry-after': '5' },
  );
}

/** The answer while the database does not answer: 503, try again in a moment. */
export function databaseUnavailable(): HttpError {
  return new HttpError(503, 'the database does not answer; try again in a moment', undefined, { 'retry-after': '2' });
}
