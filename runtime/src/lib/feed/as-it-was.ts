/**
 * The database as an event's deleted object last knew it, for the code that judges who may see
 * its deletion. An ACL principal that reads another object (a line item's order, by its key) finds
 * nothing once that object is gone: a cascade deletes the order and its lines at once, and the
 * deletion of each line reached no member who had seen it, only admins (a probe's customer kept a
 * line of a deleted order for ever). Here a read by primary key that finds nothing gives the object
 * as its own `delete` event had it, when that event came shortly before (within `WITHIN` events:
 * a cascade appends its events right after its root's). Every other read is the database's: a
 * rule that reads a list (a project's memberships) still finds the deleted ones gone.
 */
import type { FastifyRequest } from 'fastify';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { withRequestDatabase } from '../events.js';
import type { Model } from '../model.js';
import type { EventLog, ServiceEvent } from '../outbox/types.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;

/**
 * How far back, in events, a deleted object's own deletion is looked for: a range of the seq's
 * index, read only when a rule's read by key finds nothing (a cascade of more descendants than
 * this sends the last ones' deletions to admins alone, as before). Further back, the object was
 * gone before this one was deleted, and nothing may be judged by what it was.
 */
export const WITHIN = 2_000;

/** The objects found deleted, per page of events judged: `model:key` → the newest deletion's seq and object. */
export type Deletions = Map<string, Promise<{ readonly seq: number; readonly object: Rec } | undefined>>;

/** `judge` run with `databaseOf(request)` seeing the objects deleted shortly before `event` as they were. */
export function asItWas<T>(
  request: FastifyRequest,
  db: ServiceDatabase,
  log: EventLog,
  deletions: Deletions,
  event: ServiceEvent,
  judge: () => Promise<T>,
): Promise<T> {
  const deleted = (model: Model, key: unknown) => {
    const id = `${model.name}:${text(key)}`;
    let found = deletions.get(id);
    // One lookup per object and page, unless an event before it asks (its deletion came later).
    if (!found) {
      found = log
        .deletedBefore(model.name, text(key), event.seq, WITHIN)
        .then((gone) => (gone ? { seq: gone.seq, object: gone.data.object } : undefined));
      deletions.set(id, found);
    }
    return found.then((gone) => (gone && gone.seq < event.seq ? gone.object : undefined));
  };
  return withRequestDatabase(request, overlay(db, deleted), judge);
}

function overlay(db: ServiceDatabase, deleted: (model: Model, key: unknown) => Promise<Rec | undefined>) {
  const wrapped = new Map<EngineRepository, EngineRepository>();
  const wrap = (repository: EngineRepository) => {
    let out = wrapped.get(repository);
    if (!out) wrapped.set(repository, (out = withDeleted(repository, deleted)));
    return out;
  };
  return new Proxy(db, {
    get(target, name, receiver) {
      if (name === 'repository') return (model: string) => wrap(target.repository(model));
      const value: unknown = Reflect.get(target, name, receiver);
      return isRepository(value) ? wrap(value) : value;
    },
  });
}

function isRepository(value: unknown): value is EngineRepository {
  return typeof value === 'object' && value !== null && 'model' in value && 'findUnique' in value;
}

/** `repository` whose findUnique and findFirst by its primary key alone give a deleted object as it was. */
function withDeleted(
  repository: EngineRepository,
  deleted: (model: Model, key: unknown) => Promise<Rec | undefined>,
): EngineRepository {
  const model = repository.model;
  const read =
    (find: (args: never) => Promise<unknown>) =>
    async (args: { where?: Rec; select?: Rec } = {}): Promise<unknown> => {
      const found = await find(args as never);
      const key = keyAlone(model, args.where);
      if (found !== null || key === undefined) return found;
      const was = await deleted(model, key);
      return was === undefined ? null : selected(was, args.select);
    };
  return new Proxy(repository, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if ((name === 'findUnique' || name === 'findFirst') && typeof value === 'function')
        return read((value as (args: never) => Promise<unknown>).bind(target));
      return value;
    },
  });
}

/** The key a condition names when it is the primary key's equality alone (`{ id: 3 }`, `{ id: { equals: 3 } }`). */
function keyAlone(model: Model, where: Rec | undefined): unknown {
  if (!where) return undefined;
  const names = Object.keys(where);
  if (names.length !== 1 || names[0] !== model.primaryKey) return undefined;
  const value = where[model.primaryKey];
  const key =
    typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'equals' in value
      ? (value as Rec)['equals']
      : value;
  return typeof key === 'string' || typeof key === 'number' ? key : undefined;
}

function selected(object: Rec, select: Rec | undefined): Rec {
  if (!select) return { ...object };
  const out: Rec = {};
  for (const [name, wanted] of Object.entries(select)) if (wanted && name in object) out[name] = object[name];
  return out;
}
