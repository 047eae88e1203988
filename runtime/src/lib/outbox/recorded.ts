/**
 * Repositories whose writes append their events, as a route's writes do: `recorded(event.db)` in a
 * handler (or `recorded(tx)` in a script's transaction), so that webhooks, subscribers and the
 * change feed see what it changes. Plain repositories make no event; this is the same API, and
 * each write reads what its events need in the same transaction: the object as it was, for a
 * delete and for `_event_previous`, and the keys of the objects an `updateMany` or `deleteMany`
 * selects (read just before it, so outside a transaction an object written meanwhile may be
 * missed).
 */
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { linkKeys } from '../http/serialize.js';
import { newEvent } from './event.js';
import { recordChange } from './record.js';

type Rec = Record<string, unknown>;

/** Marks a database whose writes are recorded already: recorded twice, each write would have two events. */
const RECORDING = Symbol('recording');

export function recorded<D extends ServiceDatabase>(db: D): D {
  if ((db as { [RECORDING]?: true })[RECORDING]) return db;
  const wrapped = new WeakMap<object, EngineRepository>();
  return new Proxy(db, {
    get(target, property) {
      if (property === RECORDING) return true;
      if (property === 'transaction')
        return <T>(work: (tx: D) => Promise<T>) => target.transaction((tx) => work(recorded(tx as D)));
      if (property === 'repository') return (model: string) => recordingOf(target.repository(model));
      const value: unknown = Reflect.get(target, property, target);
      if (isRepository(value)) return recordingOf(value);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  function recordingOf(repository: EngineRepository): EngineRepository {
    let recording = wrapped.get(repository);
    if (!recording) wrapped.set(repository, (recording = recordingRepository(db, repository)));
    return recording;
  }
}

function isRepository(value: unknown): value is EngineRepository {
  return (
    typeof value === 'object' &&
    value !== null &&
    'model' in value &&
    typeof (value as EngineRepository).updateMany === 'function' &&
    typeof (value as EngineRepository).keys === 'function'
  );
}

function recordingRepository(db: ServiceDatabase, repository: EngineRepository): EngineRepository {
  const model = repository.model;
  const include = linkKeys(model);
  const keyOf = (object: Rec) => object[model.primaryKey];
  const asWas = (where: Rec) => repository.findUnique({ where, include });
  const ofKeys = async (keys: readonly unknown[]) =>
    keys.length ? repository.findMany({ where: { [model.primaryKey]: { in: keys } }, include }) : [];
  /** The events of many objects in one append: each as it is now, and as it was where `before` has it. */
  const appendAll = async (action: 'update' | 'delete', objects: readonly Rec[], before?: readonly Rec[]) => {
    const was = new Map(before?.map((object) => [String(keyOf(object)), object]));
    if (objects.length)
      await db.appendEvents(
        objects.map((object) => newEvent(db.models, model, action, object, was.get(String(keyOf(object))))),
      );
  };
  const writes: Partial<EngineRepository> = {
    async create(args: Parameters<EngineRepository['create']>[0]) {
      const created = await repository.create(args);
      await recordChange(db, model.name, 'create', keyOf(created));
      return created;
    },
    async update(args: Parameters<EngineRepository['update']>[0]) {
      const before = model.eventPrevious ? await asWas(args.where) : undefined;
      const updated = await repository.update(args);
      await recordChange(db, model.name, 'update', keyOf(updated), before ?? undefined);
      return updated;
    },
    // The objects it selects, read once before (for `_event_previous`) and once after: one append.
    async updateMany(args: Parameters<EngineRepository['updateMany']>[0]) {
      const keys = await repository.keys(args.where);
      const before = model.eventPrevious ? await ofKeys(keys) : undefined;
      const result = await repository.updateMany(args);
      await appendAll('update', await ofKeys(keys), before);
      return result;
    },
    async delete(args: Parameters<EngineRepository['delete']>[0]) {
      const before = await asWas(args.where);
      const deleted = await repository.delete(args);
      await recordChange(db, model.name, 'delete', keyOf(deleted), before ?? deleted);
      return deleted;
    },
    async deleteMany(args: Parameters<EngineRepository['deleteMany']>[0] = {}) {
      const objects = await repository.findMany({ ...(args.where ? { where: args.where } : {}), include });
      const result = await repository.deleteMany(args);
      await appendAll('delete', objects);
      return result;
    },
  };
  // Reads and the rest go to the repository itself (its methods may keep private state).
  return new Proxy(repository, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as keyof typeof writes];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
