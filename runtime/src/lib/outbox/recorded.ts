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
import type { Where } from '../repository.js';
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
  const key = (object: Rec) => object[model.primaryKey];
  const asWas = (where: Rec) => repository.findUnique({ where, include: linkKeys(model) });
  const selected = async (where: Where<Rec> | undefined) => {
    const keys = await repository.keys(where);
    return keys.length
      ? repository.findMany({ where: { [model.primaryKey]: { in: keys } }, include: linkKeys(model) })
      : [];
  };
  const recordUpdates = async (objects: readonly Rec[]) => {
    for (const object of objects)
      await recordChange(db, model.name, 'update', key(object), model.eventPrevious ? object : undefined);
  };
  const writes: Partial<EngineRepository> = {
    async create(args: Parameters<EngineRepository['create']>[0]) {
      const created = await repository.create(args);
      await recordChange(db, model.name, 'create', key(created));
      return created;
    },
    async update(args: Parameters<EngineRepository['update']>[0]) {
      const before = model.eventPrevious ? await asWas(args.where) : undefined;
      const updated = await repository.update(args);
      await recordChange(db, model.name, 'update', key(updated), before ?? undefined);
      return updated;
    },
    async updateMany(args: Parameters<EngineRepository['updateMany']>[0]) {
      const objects = await selected(args.where);
      const result = await repository.updateMany(args);
      await recordUpdates(objects);
      return result;
    },
    async delete(args: Parameters<EngineRepository['delete']>[0]) {
      const before = await asWas(args.where);
      const deleted = await repository.delete(args);
      await db.appendEvents([newEvent(db.models, model, 'delete', before ?? deleted)]);
      return deleted;
    },
    async deleteMany(args: Parameters<EngineRepository['deleteMany']>[0] = {}) {
      const objects = await selected(args.where);
      const result = await repository.deleteMany(args);
      if (objects.length) await db.appendEvents(objects.map((object) => newEvent(db.models, model, 'delete', object)));
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
