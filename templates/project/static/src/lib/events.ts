/**
 * Event handlers and field processors (contract §7). Handlers listed for `before_<action>` run
 * before the action, `after_<action>` after it, in list order; processors run before writes of
 * their field. Everything runs inside the action's transaction: a handler that throws undoes the
 * whole request, and its HttpError is the response.
 */
import type { FastifyRequest } from 'fastify';
import type { Model } from './model.js';

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

/** A field of the request, as handlers and processors see it. */
export interface EventField<V = unknown> {
  readonly name: string;
  readonly new_value: V;
}

export interface Event<T = Record<string, unknown>, DB = unknown> {
  readonly model: Model<T>;
  readonly action: Action;
  /** The request's fields; test `'name' in event.fields` before using one. */
  readonly fields: { readonly [K in keyof T]?: EventField<T[K]> };
  /** The object the action works on (item actions), or undefined. */
  readonly instance?: T;
  /** The response data (after events only). */
  response?: unknown;
  readonly view: { readonly request: FastifyRequest };
  /** The repositories of every model, in this request's transaction. */
  readonly db: DB;
  /** Before: changes what is written. After: changes the response. */
  setFieldValue(name: keyof T & string, value: unknown): void;
}

export type Handler<T = Record<string, unknown>, DB = unknown> = (event: Event<T, DB>) => void | Promise<void>;

export interface ProcessorArgs<T = Record<string, unknown>, DB = unknown> {
  readonly new_value: unknown;
  readonly instance: T | undefined;
  readonly field: EventField;
  readonly request: FastifyRequest;
  readonly model: Model<T>;
  readonly event: Event<T, DB>;
}

export type Processor<T = Record<string, unknown>, DB = unknown> = (args: ProcessorArgs<T, DB>) => unknown;

/** The handlers and processors of one model. */
export interface ModelEvents<T = Record<string, unknown>, DB = unknown> {
  readonly before?: Partial<Record<Action, readonly Handler<T, DB>[]>>;
  readonly after?: Partial<Record<Action, readonly Handler<T, DB>[]>>;
  readonly processors?: { readonly [K in keyof T]?: readonly Processor<T, DB>[] };
}

/** Actions whose fields processors rewrite (contract §7). */
const PROCESSED: ReadonlySet<Action> = new Set(['create', 'update', 'replace', 'update_many', 'register']);

export interface EventRun<DB> {
  readonly model: Model;
  readonly events: ModelEvents<Record<string, unknown>, DB> | undefined;
  readonly action: Action;
  readonly request: FastifyRequest;
  readonly db: DB;
  readonly instance?: Record<string, unknown>;
}

export function hasHandlers(events: ModelEvents<never, never> | undefined, action: Action): boolean {
  return Boolean(
    events?.before?.[action]?.length ||
    events?.after?.[action]?.length ||
    (PROCESSED.has(action) && events?.processors && Object.keys(events.processors).length),
  );
}

/**
 * Runs the before handlers and processors: returns the data to write, as they left it.
 * `data` is not changed; a copy is.
 */
export async function runBefore<DB>(
  run: EventRun<DB>,
  data: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const values = { ...data };
  const event = makeEvent(run, values, () => undefined);
  for (const handler of run.events?.before?.[run.action] ?? []) await handler(event);
  if (PROCESSED.has(run.action)) {
    for (const [name, processors] of Object.entries(run.events?.processors ?? {})) {
      if (!(name in values) || !processors?.length) continue;
      let value = values[name];
      for (const processor of processors) {
        value = await processor({
          new_value: value,
          instance: run.instance,
          field: { name, new_value: value },
          request: run.request,
          model: run.model,
          event,
        });
      }
      values[name] = value;
    }
  }
  return values;
}

/** Runs the after handlers; returns the response, as they left it. */
export async function runAfter<DB>(
  run: EventRun<DB>,
  data: Record<string, unknown>,
  response: unknown,
): Promise<unknown> {
  const handlers = run.events?.after?.[run.action] ?? [];
  if (handlers.length === 0) return response;
  const event = makeEvent(run, { ...data }, (name, value) => setOnResponse(event.response, name, value));
  event.response = response;
  for (const handler of handlers) await handler(event);
  return event.response;
}

function makeEvent<DB>(
  run: EventRun<DB>,
  values: Record<string, unknown>,
  afterSet: (name: string, value: unknown) => void,
): Event<Record<string, unknown>, DB> {
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
    view: { request: run.request },
    db: run.db,
    setFieldValue(name, value) {
      values[name] = value;
      afterSet(name, value);
    },
  };
}

/** After events change the response object (or every object of a list response). */
function setOnResponse(response: unknown, name: string, value: unknown): void {
  if (!response || typeof response !== 'object') return;
  const data = (response as { data?: unknown }).data;
  const targets = Array.isArray(data) ? data : Array.isArray(response) ? response : [response];
  for (const item of targets) if (item && typeof item === 'object') (item as Record<string, unknown>)[name] = value;
}
