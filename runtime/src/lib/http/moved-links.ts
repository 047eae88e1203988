/**
 * The rows of other objects a write changes by moving links: setting `labels` on an item points
 * each listed label at the item and unlinks the labels left out, and a label taken from another
 * item leaves that item with one label fewer. Each of those objects gets an `update` event in the
 * write's transaction, as it is after the write, so that webhooks and the change feed see every
 * object a route changes.
 *
 * The objects whose foreign key the write changes (the labels) are updated as a PATCH of that key
 * alone would update them, in the write's transaction: their model's `before_update` handlers run
 * first, with the link in `event.fields` (its new value the key of the object that links them,
 * null when they are unlinked or when that object is being created without a key given). A rule
 * such a handler keeps for a change of the link (only a manager assigns a contractor) then holds
 * for one made from the other model too; what it throws refuses the whole write, and the other
 * fields it sets are written to that object after the write. Then their `after_update` handlers
 * run, with the same fields and the object as it is now in `event.response` (no answer is sent of
 * it), so that what they keep up to date (a count of a contractor's open requests) stays so. Who
 * may move a link at all is the x-ACLs' to say (relinks.ts). The objects that only lose a linked
 * object (the item a label is taken from) keep their own foreign keys: their handlers do not run.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceDatabase } from '../database.js';
import { runAfter, runBefore, type EventRun, type ServiceEvents } from '../events.js';
import { keyValue, type Model } from '../model.js';
import { unlinkOnly, type Include } from '../repository.js';
import { newEvent } from '../outbox/event.js';
import { text } from '../text.js';
import { keyOf, keysOf, SLICE } from './relinks.js';
import { linkKeys } from './serialize.js';

type Rec = Record<string, unknown>;

/** A row to lock: its model's name and its key. */
interface RowOf {
  readonly model: string;
  readonly key: unknown;
}

/** Per model, the keys (as text) of the objects a write is about to move, read before it. */
type MovedLinks = ReadonlyMap<string, ReadonlySet<string>>;

/** The objects of one relationship whose foreign key the write changes: to the writer's key, or to null. */
interface Relinked {
  readonly target: Model;
  /** The target's field that links back (`Ticket.contractor`). */
  readonly link: string;
  readonly gained: readonly string[];
  readonly dropped: readonly string[];
}

/** What the handlers of the objects a write moves are run with: the write's request, the service's handlers. */
export interface MovedObjectHandlers {
  readonly request: FastifyRequest;
  readonly events: ServiceEvents | undefined;
}

/** An object whose link the write changes, with handlers to run: its before handlers have run. */
interface HandledObject {
  /** How its handlers run: as an update of the object as it was before the write. */
  readonly run: EventRun;
  readonly key: unknown;
  /** The link's new value and what its before handlers set (`event.fields` of its after handlers). */
  readonly fields: Rec;
  /** What its before handlers set besides the link, to write to it after the write. */
  readonly others: Rec;
}

/**
 * `write`, the change of `data` on the object `key` of `model` (undefined for a new one) with its
 * own event; then an `update` event for each object its links moved, read as they are now.
 */
export async function withMovedLinks<R>(
  db: ServiceDatabase,
  model: Model,
  key: unknown,
  data: Rec,
  write: () => Promise<R>,
  handlers: MovedObjectHandlers,
): Promise<R> {
  const { moved, relinked } = await linksToMove(db, model, key, data);
  const linkedTo = key ?? data[model.primaryKey] ?? null;
  const handled = await runMovedHandlers(db, relinked, linkedTo, handlers);
  // The written object's row with the others', in one order: two writes that move links between
  // the same two objects (each locking its own row, then the other's) deadlocked on PostgreSQL, and
  // a probe's burst of six kept doing so past the retries (a 503).
  const own = key !== undefined && model.eventPrevious ? { model: model.name, key } : undefined;
  const befores = await previousStates(db, moved, own);
  const result = await write();
  for (const { run, key: objectKey, others } of handled)
    if (Object.keys(others).length)
      await db.repository(run.model.name).update({ where: { [run.model.primaryKey]: objectKey }, data: others });
  await runMovedAfterHandlers(db, handled);
  await recordUpdated(db, moved, befores);
  return result;
}

/**
 * Runs the `before_update` handlers of each object whose link the write changes, as a PATCH of
 * that link would (the object as it is, the link's new value in `event.fields`); returns the
 * objects with handlers, and what else their before handlers set, to write after the write. A
 * change they make to the link itself is not theirs to make here: the write decides it.
 */
async function runMovedHandlers(
  db: ServiceDatabase,
  relinked: readonly Relinked[],
  linkedTo: unknown,
  { request, events }: MovedObjectHandlers,
): Promise<HandledObject[]> {
  const handled: HandledObject[] = [];
  for (const { target, link, gained, dropped } of relinked) {
    const modelEvents = events?.get(target.name);
    if (!modelEvents?.before?.update?.length && !modelEvents?.after?.update?.length) continue;
    const newValue = new Map([...gained.map((k) => [k, linkedTo] as const), ...dropped.map((k) => [k, null] as const)]);
    for await (const objects of slices(db, target, [...newValue.keys()], linkKeys(target))) {
      for (const object of objects) {
        const key = object[target.primaryKey];
        const change = { [link]: newValue.get(text(key)) ?? null };
        const run = { model: target, events: modelEvents, action: 'update' as const, request, instance: object };
        const { [link]: _link, ...others } = await runBefore(run, db, change);
        handled.push({ run, key, fields: { ...others, ...change }, others });
      }
    }
  }
  return handled;
}

/** Runs the `after_update` handlers of the objects whose link the write changed, each as it is now. */
async function runMovedAfterHandlers(db: ServiceDatabase, handled: readonly HandledObject[]): Promise<void> {
  const byModel = new Map<Model, Map<string, HandledObject>>();
  for (const object of handled) {
    if (!object.run.events?.after?.update?.length) continue;
    const byKey = byModel.get(object.run.model) ?? new Map<string, HandledObject>();
    byModel.set(object.run.model, byKey.set(text(object.key), object));
  }
  for (const [model, byKey] of byModel)
    for await (const now of slices(db, model, [...byKey.keys()], linkKeys(model)))
      for (const object of now) {
        const { run, fields } = byKey.get(text(object[model.primaryKey]))!;
        await runAfter(run, db, fields, object, object);
      }
}

/**
 * Read before the write of `data` on the object `key` of `model` (undefined for a new one): for
 * each relationship kept on the other side that `data` sets, the objects it links and unlinks,
 * and the objects of `model` that the linked ones leave.
 */
async function linksToMove(
  db: ServiceDatabase,
  model: Model,
  key: unknown,
  data: Rec,
): Promise<{ moved: MovedLinks; relinked: Relinked[] }> {
  const moved = new Map<string, Set<string>>();
  const relinked: Relinked[] = [];
  const linkedBefore = new Map<string, ReadonlySet<string>>();
  const add = (name: string, keys: Iterable<string>) => {
    const set = moved.get(name) ?? new Set<string>();
    for (const k of keys) set.add(k);
    moved.set(name, set);
  };
  for (const relation of model.relations) {
    if (relation.local || data[relation.name] === undefined) continue;
    const target = db.models.get(relation.target)!;
    const related = db.repository(target.name);
    const before = new Set(
      key === undefined || key === null ? [] : (await related.keys({ [relation.inverse]: key })).map(text),
    );
    linkedBefore.set(relation.name, before);
    const after = new Set(keysIn(data[relation.name], target).map(text));
    const gained = [...after].filter((k) => !before.has(k));
    const dropped = [...before].filter((k) => !after.has(k));
    add(target.name, [...gained, ...dropped]);
    relinked.push({ target, link: relation.inverse, gained, dropped });
    // The objects the gained ones were linked to lose them.
    for await (const objects of slices(db, target, gained, { [relation.inverse]: true })) {
      const left = keysIn(
        objects.map((o) => o[relation.inverse]),
        model,
      );
      add(
        model.name,
        left.map(text).filter((k) => key === undefined || key === null || k !== text(key)),
      );
    }
  }
  // What the write unlinks is what was read here: checked, handled and recorded (repository.ts).
  unlinkOnly(data, linkedBefore);
  return { moved, relinked };
}

/**
 * Appends an `update` event for each object of `changed` (per model name, keys as text) that a
 * write changed by its links (moved, or unlinked by a cascade), as it is now (and as it was, where
 * `befores` has it).
 */
export async function recordUpdated(db: ServiceDatabase, changed: MovedLinks, befores: PreviousStates): Promise<void> {
  for (const [name, keys] of changed) {
    const model = db.models.get(name)!;
    const before = befores.get(name);
    for await (const objects of slices(db, model, [...keys], linkKeys(model)))
      await db.appendEvents(
        objects.map((object) =>
          newEvent(db.models, model, 'update', object, before?.get(text(object[model.primaryKey]))),
        ),
      );
  }
}

/** Per model, the objects (by key as text) as they were before a write, for their events' `previous`. */
export type PreviousStates = ReadonlyMap<string, ReadonlyMap<string, Rec>>;

/**
 * The objects of `keys` (per model name) of the models whose events carry `previous`
 * (`eventPrevious`), as they are before the write that changes them: each under the row lock the
 * write would take, with its links' keys. None for the other models.
 */
export async function previousStates(db: ServiceDatabase, keys: MovedLinks, alsoLock?: RowOf): Promise<PreviousStates> {
  await lockInOrder(db, keys, alsoLock);
  const states = new Map<string, Map<string, Rec>>();
  for (const [name, objectKeys] of keys) {
    const model = db.models.get(name);
    if (!model?.eventPrevious || objectKeys.size === 0) continue;
    const byKey = new Map<string, Rec>();
    for await (const objects of slices(db, model, [...objectKeys], linkKeys(model)))
      for (const object of objects) byKey.set(text(object[model.primaryKey]), object);
    states.set(name, byKey);
  }
  return states;
}

/**
 * Locks the rows of `keys` whose models keep their previous state (and `alsoLock`'s) in the order of
 * model and key, whoever asks: writes that lock some of the same rows then wait for each other
 * instead of each holding what the other wants.
 */
async function lockInOrder(db: ServiceDatabase, keys: MovedLinks, alsoLock?: RowOf): Promise<void> {
  const rows: { model: string; key: unknown; order: string }[] = [];
  for (const [name, objectKeys] of keys) {
    if (!db.models.get(name)?.eventPrevious) continue;
    for (const key of objectKeys) rows.push({ model: name, key, order: `${name}\u0000${key}` });
  }
  if (rows.length === 0) return;
  if (alsoLock) rows.push({ ...alsoLock, order: `${alsoLock.model}\u0000${text(alsoLock.key)}` });
  rows.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  for (const { model, key } of rows) await db.repository(model).lockForUpdate(key);
}

/** The objects of `model` whose keys (as text) are `keys`, read SLICE keys a statement, a slice at a time. */
export function slices(
  db: ServiceDatabase,
  model: Model,
  keys: readonly string[],
  include: Include<Rec>,
): AsyncGenerator<Rec[]> {
  const values = keys.map((k) => keyValue(model, k) ?? k);
  return inSlices(db, model, model.primaryKey, values, include);
}

/** The objects of `model` whose `field` holds one of `values`, read SLICE values a statement, a slice at a time. */
export async function* inSlices(
  db: ServiceDatabase,
  model: Model,
  field: string,
  values: readonly unknown[],
  include: Include<Rec>,
): AsyncGenerator<Rec[]> {
  for (let i = 0; i < values.length; i += SLICE)
    yield await db.repository(model.name).findMany({ where: { [field]: { in: values.slice(i, i + SLICE) } }, include });
}

/** The keys a relationship value names: a key, a list of them, or embedded objects with theirs. */
function keysIn(value: unknown, model: Model): unknown[] {
  return keysOf(value)
    .map((v) => keyOf(v, model))
    .filter((k) => k !== null);
}
