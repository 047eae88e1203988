/**
 * The rows of other objects a write changes by moving links: setting `labels` on an item points
 * each listed label at the item and unlinks the labels left out, and a label taken from another
 * item leaves that item with one label fewer. Each of those objects gets an `update` event in the
 * write's transaction, as it is after the write, so that webhooks and the change feed see every
 * object a route changes. (Their handlers do not run: who may move a link is the x-ACLs' to say,
 * relinks.ts.)
 */
import type { ServiceDatabase } from '../database.js';
import { keyValue, type Model } from '../model.js';
import { newEvent } from '../outbox/event.js';
import { text } from '../text.js';
import { keyOf, keysOf, SLICE } from './relinks.js';
import { linkKeys } from './serialize.js';

type Rec = Record<string, unknown>;

/** Per model, the keys (as text) of the objects a write is about to move, read before it. */
type MovedLinks = ReadonlyMap<string, ReadonlySet<string>>;

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
): Promise<R> {
  const moved = await linksToMove(db, model, key, data);
  const result = await write();
  await recordMoved(db, moved);
  return result;
}

/**
 * Read before the write of `data` on the object `key` of `model` (undefined for a new one): for
 * each relationship kept on the other side that `data` sets, the objects it links and unlinks,
 * and the objects of `model` that the linked ones leave.
 */
async function linksToMove(db: ServiceDatabase, model: Model, key: unknown, data: Rec): Promise<MovedLinks> {
  const moved = new Map<string, Set<string>>();
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
    const after = new Set(keysIn(data[relation.name], target).map(text));
    const gained = [...after].filter((k) => !before.has(k));
    add(target.name, [...gained, ...[...before].filter((k) => !after.has(k))]);
    // The objects the gained ones were linked to lose them.
    for (let i = 0; i < gained.length; i += SLICE) {
      const objects = await related.findMany({
        where: { [target.primaryKey]: { in: gained.slice(i, i + SLICE).map((k) => keyValue(target, k) ?? k) } },
        include: { [relation.inverse]: true },
      });
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
  return moved;
}

/** Appends an `update` event for each object the write moved, as it is now. */
async function recordMoved(db: ServiceDatabase, moved: MovedLinks): Promise<void> {
  for (const [name, keys] of moved) {
    const model = db.models.get(name)!;
    const all = [...keys].map((k) => keyValue(model, k) ?? k);
    for (let i = 0; i < all.length; i += SLICE) {
      const objects = await db.repository(name).findMany({
        where: { [model.primaryKey]: { in: all.slice(i, i + SLICE) } },
        include: linkKeys(model),
      });
      await db.appendEvents(objects.map((object) => newEvent(db.models, model, 'update', object)));
    }
  }
}

/** The keys a relationship value names: a key, a list of them, or embedded objects with theirs. */
function keysIn(value: unknown, model: Model): unknown[] {
  return keysOf(value)
    .map((v) => keyOf(v, model))
    .filter((k) => k !== null);
}
