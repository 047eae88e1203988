/**
 * Event handlers and field processors. Handlers listed for `before_<action>` run
 * before the action, `after_<action>` after it, in list order; processors run before writes of
 * their field, after the before handlers. Everything runs inside the action's transaction: a
 * handler that throws undoes the whole request, and its HttpError is the response.
 */
import type { FastifyRequest } from 'fastify';
import type { Model } from './model.js';
import type { Where } from './repository.js';
import type { ServiceDatabase } from './database.js';
import { assertInTime, requestSignal, untilTimeUp } from './http/deadline.js';
import { HttpError } from './errors.js';
import { unfitValue } from './http/written-values.js';

type Rec = Record<string, unknown>;

// Declared here, where user code meets the request; lib/http/app.ts makes it null on every request.
declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in user (set by lib/auth/identity.ts), or null: anonymous, or `auth = false`. */
    user: Record<string, unknown> | null;
  }
}

export type Action =
  | 'index'
  | 'create'
  | 'update_many'
  | 'delete_many'
  | 'collection_options'
  | 'show'
  | 'update'
  | 'replace'
  | 'delete'
  | 'item_options'
  | 'login'
  | 'logout'
  | 'register';

/** A request, whatever its caller's type: what `databaseOf` (src/db/index.ts) takes. */
export type AnyRequest = Omit<FastifyRequest, 'user'>;

/**
 * The request as user code sees it: `request.user` typed as the signed-in user (`U`, the API's
 * `SignedIn…` type), or null when the caller is anonymous (always, with `auth = false`). Exactly
 * that type: intersected with FastifyRequest's record, a field the service does not read for the
 * caller (a link kept in another model's rows) was still a key to read, as `unknown`.
 */
export type RequestBy<U = Rec> = AnyRequest & { readonly user: U | null };

/** A field of the request, as handlers and processors see it. */
export interface EventField<V = unknown> {
  readonly name: string;
  readonly new_value: V;
}

/** What a handler of model `T` gets; `DB` is the generated `Database` (its repositories). */
export interface Event<T = Rec, DB = unknown, U = Rec> {
  readonly model: Model<T>;
  readonly action: Action;
  /**
   * The fields the request writes: `const name = event.fields.name; if (!name) return;`, then
   * `name.new_value` (`'name' in event.fields` is true as often, but TypeScript does not narrow by it).
   */
  readonly fields: { readonly [K in keyof T]?: EventField<T[K]> };
  /**
   * The object the action works on (item actions, login, logout) as it was before the action, in
   * after events too (the object as written is `object`, and what the answer shows of it
   * `response`), or undefined.
   */
  readonly instance?: T;
  /**
   * A change of many (`update_many`, `delete_many`): the objects it selects (the request's filters,
   * among those the caller may see), as a `where` of `db`'s repositories, so that a handler can read
   * them: `await event.db.expense.count({ where: { AND: [event.where, { settled: true }] } })`.
   */
  readonly where?: Where<T>;
  /**
   * After events of a create, update, replace or registration: the object as written, typed as the
   * model (every field, whatever the caller may read; its links those the caller may view). What
   * the answer shows of it is `response`.
   */
  readonly object?: T;
  /** The response data (after events only): an object, a page or a status body, by action. */
  response?: unknown;
  readonly view: { readonly request: RequestBy<U> };
  /** The repositories of every model, in this request's transaction. */
  readonly db: DB;
  /**
   * Aborted when the request's time is up (`http.handler_timeout`): pass it to what the handler
   * waits for, `fetch(url, { signal: event.signal })`. The service stops waiting for the handler
   * then, and undoes its transaction; what it does with `db` after that fails.
   */
  readonly signal: AbortSignal;
  /** Before: changes what is written. After: changes the response. */
  setFieldValue<K extends keyof T & string>(name: K, value: T[K]): void;
}

export type Handler<T = Rec, DB = unknown, U = Rec> = (event: Event<T, DB, U>) => void | Promise<void>;

/**
 * The event of a handler several models share (`E`, the union of their events; `M`, of their
 * models): any of them, with a `setFieldValue` of the fields they all have. On the bare union each
 * model's own `setFieldValue` is a signature of its own, and TypeScript calls none of them: a
 * probe's shared `set_owner` did not compile as the README shows it.
 */
export type SharedEvent<E, M> = (E extends unknown ? Omit<E, 'setFieldValue'> : never) & {
  setFieldValue<K extends keyof M & string>(name: K, value: M[K]): void;
};

/** What a processor of field `K` of model `T` gets. */
export interface ProcessorArgs<T = Rec, K extends keyof T = keyof T, DB = unknown, U = Rec> {
  readonly new_value: T[K];
  readonly instance: T | undefined;
  readonly field: EventField<T[K]>;
  readonly request: RequestBy<U>;
  readonly model: Model<T>;
  readonly event: Event<T, DB, U>;
}

/** Returns the value to write (the stub declares its type; the runtime writes what it returns). */
export type Processor<T = Rec, K extends keyof T = keyof T, DB = unknown, U = Rec> = (
  args: ProcessorArgs<T, K, DB, U>,
) => unknown;

/** The handlers and processors of one model. */
export interface ModelEvents<T = Rec, DB = unknown, U = Rec> {
  readonly before?: Partial<Record<Action, readonly Handler<T, DB, U>[]>>;
  readonly after?: Partial<Record<Action, readonly Handler<T, DB, U>[]>>;
  readonly processors?: { readonly [K in keyof T]?: readonly Processor<T, K, DB, U>[] };
}

/** The events of every model, by model name (src/events.ts builds it with `modelEvents`). */
export type ServiceEvents = ReadonlyMap<string, ModelEvents>;

/** Binds a model's handlers to it, checked against its type; `serviceEvents` collects them. */
export function modelEvents<T, DB, U = Rec>(
  model: Model<T>,
  events: ModelEvents<T, DB, U>,
): readonly [string, ModelEvents] {
  // Handlers are typed by their model and the user model; the runtime passes them those objects only.
  return [model.name, events as unknown as ModelEvents];
}

export function serviceEvents(...entries: (readonly [string, ModelEvents])[]): ServiceEvents {
  return new Map(entries);
}

/** Actions whose fields processors rewrite. */
const PROCESSED: ReadonlySet<Action> = new Set(['create', 'update', 'replace', 'update_many', 'register']);

export interface EventRun {
  readonly model: Model;
  readonly events: ModelEvents | undefined;
  readonly action: Action;
  readonly request: FastifyRequest;
  readonly instance?: Rec;
  /**
   * Fields the write sets that the request did not send (what a PUT leaves out returns to its
   * default): handlers see them, processors leave them as they are.
   */
  readonly resets?: ReadonlySet<string>;
  /** A change of many (`update_many`, `delete_many`): the objects it selects, as a `where` of the repositories. */
  readonly where?: Rec;
}

export function hasHandlers(run: EventRun): boolean {
  return runsBefore(run) || Boolean(run.events?.after?.[run.action]?.length);
}

/** Whether anything can change the data before it is written. */
export function runsBefore({ events, action }: EventRun): boolean {
  return Boolean(
    events?.before?.[action]?.length ||
    (PROCESSED.has(action) && events?.processors && Object.keys(events.processors).length),
  );
}

/**
 * Runs the before handlers and processors: returns the data to write, as they left it.
 * `data` is not changed; a copy is.
 */
export async function runBefore(run: EventRun, db: unknown, data: Rec): Promise<Rec> {
  const values = { ...data };
  const event = makeEvent(run, db, values, () => undefined);
  const handlers = run.events?.before?.[run.action] ?? [];
  for (const handler of handlers) await traced(run, 'before', handler, () => handler(event));
  const processors = (PROCESSED.has(run.action) ? (run.events?.processors ?? {}) : {}) as Readonly<
    Record<string, readonly Processor[] | undefined>
  >;
  if (handlers.length) {
    const by = `${handlers.map(codeName).join(', ')}, before_${run.action} of ${run.model.name}`;
    // What a processor of the field takes next is checked as the processor leaves it. A list or
    // dict is checked even as the body had it: a handler may have changed it in place.
    for (const name of Object.keys(values))
      if (mayBeChanged(values[name], data[name]) && !processors[name]?.length)
        heldToSchema(run, name, values[name], by);
  }
  for (const [name, chain] of Object.entries(processors)) {
    if (!(name in values) || !chain?.length || (run.resets?.has(name) && values[name] === data[name])) continue;
    let value = values[name];
    for (const processor of chain) {
      const args = {
        new_value: value,
        instance: run.instance,
        field: { name, new_value: value },
        request: run.request,
      };
      value = await traced(run, `processor of ${name}`, processor, () =>
        processor({ ...args, model: run.model, event }),
      );
    }
    // What the chain leaves: a processor may hand the next one a value that only the next makes fit.
    const names = chain.map(codeName).join(', ');
    heldToSchema(run, name, value, `${names}, processor${chain.length > 1 ? 's' : ''} of ${name} of ${run.model.name}`);
    values[name] = value;
  }
  return values;
}

/** Whether a before handler may have changed a value the body had: given another, or a list or dict it can change in place. */
function mayBeChanged(value: unknown, sent: unknown): boolean {
  return value !== sent || (typeof value === 'object' && value !== null);
}

/** A handler's or processor's name as logs give it. */
function codeName(code: { readonly name: string }): string {
  return code.name || 'an anonymous function';
}

/**
 * A value the model's own code (`by`) gave `field`, held to the field's schema: a 500 (not the
 * client's mistake) whose log names the code, where the databases stored or refused it each its
 * own way (lib/http/written-values.ts).
 */
function heldToSchema(run: EventRun, field: string, value: unknown, by: string): void {
  const problem = unfitValue(run.request, run.model, field, value);
  if (problem === undefined) return;
  const error = new Error(`${by} gave ${run.model.name}.${field} a value its schema refuses: ${problem}`);
  thrownBy.set(error, by);
  throw error;
}

/** Runs the after handlers (`object`: the object written, `Event.object`); returns the response, as they left it. */
export async function runAfter(
  run: EventRun,
  db: unknown,
  data: Rec,
  response: unknown,
  object?: Rec,
): Promise<unknown> {
  const handlers = run.events?.after?.[run.action] ?? [];
  if (handlers.length === 0) return response;
  const event = makeEvent(run, db, { ...data }, (name, value) => setOnResponse(event.response, name, value), object);
  event.response = response;
  for (const handler of handlers) await traced(run, 'after', handler, () => handler(event));
  return event.response;
}

/**
 * What user code threw, other than an HttpError (a refusal it meant), by the code that threw it:
 * the log of its 500 names the handler and its event (`setReporter, before_create of Ticket`),
 * where the stack alone points into the compiled `dist/`.
 */
export const thrownBy = new WeakMap<object, string>();

/**
 * Runs user code for `run`: none starts once its request was answered 503 for taking too long, and
 * none is waited for past that (deadline.ts `untilTimeUp`).
 */
async function traced<T>(run: EventRun, when: string, code: { name: string }, call: () => Promise<T> | T): Promise<T> {
  const what = () =>
    `${codeName(code)}, ${when === 'before' || when === 'after' ? `${when}_${run.action}` : when} of ${run.model.name}`;
  assertInTime(run.request);
  try {
    return await untilTimeUp(run.request, new Promise<T>((resolve) => resolve(call())), (error) =>
      run.request.log.error({ err: error }, `${what()} failed after its request's time was up (http.handler_timeout)`),
    );
  } catch (error) {
    if (typeof error === 'object' && error !== null && !thrownBy.has(error) && !(error instanceof HttpError))
      thrownBy.set(error, what());
    throw error;
  }
}

/**
 * One action in one transaction with its events: before handlers and processors may change the
 * data, `work` writes it (and appends its outbox events: lib/outbox/), after handlers may change
 * what `present` made of the result. When nothing runs before, `prepare` (password hashing: slow)
 * runs before the transaction opens. `alone`: there are no handlers, and `work` is one step that is
 * all or nothing by itself (a write with its event): no transaction is opened for it. `first`:
 * what refuses the write before any handler runs (If-Match), in the transaction: a handler's
 * mail or webhook is not sent for a request answered 412.
 */
export async function inTransaction<D extends ServiceDatabase, R>(
  database: D,
  run: EventRun,
  body: Rec,
  prepare: (data: Rec) => Promise<Rec>,
  work: (db: D, data: Rec) => Promise<R>,
  present: (result: R) => unknown,
  { alone = false, first }: { alone?: boolean; first?: (db: D) => Promise<void> } = {},
): Promise<unknown> {
  const prepared = runsBefore(run) ? null : await prepare(body);
  // Answered 503 meanwhile (slow password hashing): nothing is written.
  assertInTime(run.request);
  if (alone) return present(await work(database, prepared ?? body));
  return inRequestTransaction(database, run.request, async (db) => {
    await first?.(db);
    const data = prepared ?? (await prepare(await runBefore(run, db, body)));
    const result = await work(db, data);
    const response = await runAfter(run, db, data, present(result), writtenObject(run, result));
    // Answered 503 meanwhile (http.handler_timeout): throwing rolls the transaction back.
    assertInTime(run.request);
    return response;
  });
}

/** The transaction each request's write (or read with handlers) runs in, while it is open. */
const openTransactions = new WeakMap<FastifyRequest, ServiceDatabase>();

/**
 * The database the code a request runs reads (`databaseOf` of src/db/index.ts): inside the
 * transaction of its write, that transaction, which sees what the write did, on the connection the
 * write holds. An ACL principal's `where` asked by a write's answer read the whole database instead,
 * on a second connection of PostgreSQL's pool: ten writes at once, each holding one connection and
 * waiting for another, held every request up until the pool's timeout (503 to everyone).
 */
export function requestDatabase(request: AnyRequest, outside: ServiceDatabase): ServiceDatabase {
  // Once the request was answered 503 its transaction has ended: code still running for it (a
  // handler nobody waits for) would otherwise write outside any transaction.
  assertInTime(request as FastifyRequest);
  return openTransactions.get(request as FastifyRequest) ?? outside;
}

/**
 * `work` with `database` as what `requestDatabase(request)` gives while it runs (a request's
 * transaction; the change feed's judge of a deleted object, lib/feed/as-it-was.ts).
 */
export async function withRequestDatabase<R>(
  request: FastifyRequest,
  database: ServiceDatabase,
  work: () => Promise<R>,
): Promise<R> {
  const outer = openTransactions.get(request);
  openTransactions.set(request, database);
  try {
    return await work();
  } finally {
    if (outer) openTransactions.set(request, outer);
    else openTransactions.delete(request);
  }
}

/** `work` in a transaction of `database`, which `requestDatabase(request)` gives while it runs. */
function inRequestTransaction<D extends ServiceDatabase, R>(
  database: D,
  request: FastifyRequest,
  work: (db: D) => Promise<R>,
): Promise<R> {
  return database.transaction((tx) => {
    const db = tx as unknown as D;
    return withRequestDatabase(request, db, () => work(db));
  });
}

/** The actions whose work gives the one object it wrote (`Event.object`). */
const WRITES_ONE: ReadonlySet<Action> = new Set(['create', 'update', 'replace', 'register']);

function writtenObject(run: EventRun, result: unknown): Rec | undefined {
  return WRITES_ONE.has(run.action) && typeof result === 'object' && result !== null && !Array.isArray(result)
    ? (result as Rec)
    : undefined;
}

/** A read (or login, logout, OPTIONS) with its events: in a transaction only when it has handlers. */
export async function withEvents<D extends ServiceDatabase, R>(
  database: D,
  run: EventRun,
  work: (db: D) => Promise<R>,
): Promise<unknown> {
  if (!hasHandlers(run)) return work(database);
  return inRequestTransaction(database, run.request, async (db) => {
    await runBefore(run, db, {});
    const response = await runAfter(run, db, {}, await work(db));
    assertInTime(run.request);
    return response;
  });
}

function makeEvent(
  run: EventRun,
  db: unknown,
  values: Rec,
  afterSet: (name: string, value: unknown) => void,
  object?: Rec,
): Event {
  const fields = new Proxy(values, {
    get: (target, name) => (typeof name === 'string' && name in target ? { name, new_value: target[name] } : undefined),
    has: (target, name) => name in target,
    ownKeys: (target) => Reflect.ownKeys(target),
    getOwnPropertyDescriptor: (target, name) =>
      typeof name === 'string' && name in target
        ? { enumerable: true, configurable: true, value: { name, new_value: target[name] } }
        : undefined,
  }) as unknown as Event['fields'];
  return {
    model: run.model,
    action: run.action,
    fields,
    ...(run.instance ? { instance: run.instance } : {}),
    ...(object ? { object } : {}),
    // A copy: what a handler does to it changes nothing of what the change selects.
    ...(run.where ? { where: structuredClone(run.where) } : {}),
    view: { request: run.request },
    db,
    get signal() {
      return requestSignal(run.request);
    },
    setFieldValue(name, value) {
      // A key never changes (contract 4.3): a before_update that set it moved the object, and its
      // events went on under a key that was never created (a probe's handler; a 500 names it).
      if (name === run.model.primaryKey && CHANGES.has(run.action) && run.instance?.[name] !== value)
        throw new Error(`setFieldValue('${name}'): the key of ${run.model.name} never changes once it is created`);
      values[name] = value;
      afterSet(name, value);
    },
  };
}

/** The actions that change objects that exist (a registration, like a create, gives its key). */
const CHANGES: ReadonlySet<Action> = new Set(['update', 'replace', 'update_many']);

/**
 * After events change the response object (or every object of a list response): a field it shows.
 * One it does not (hidden from the caller, or left out by `_fields`) stays out: a probe's after
 * handler that set `status` showed it to a member whose `_auth_fields` leave it out.
 */
function setOnResponse(response: unknown, name: string, value: unknown): void {
  if (!response || typeof response !== 'object') return;
  const data = (response as { data?: unknown }).data;
  const targets = Array.isArray(data) ? data : Array.isArray(response) ? response : [response];
  for (const item of targets)
    if (item && typeof item === 'object' && Object.hasOwn(item, name)) (item as Rec)[name] = value;
}
