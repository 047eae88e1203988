/**
 * The objects a delete takes with it: deleting an author whose posts have `ondelete: CASCADE`
 * deletes the posts (and what cascades from them), and one whose comments have `NULLIFY` unlinks
 * them. The database (or the MongoDB engine) does that; this module gives each of those objects
 * its event in the delete's transaction, so that webhooks and the change feed hear of every
 * object a route deletes or changes: a `delete` event for each object deleted with it, as it was,
 * and an `update` event for each object unlinked, as it is after. Their handlers do not run (a
 * database cascade runs none). Read before the delete, a slice of keys per statement.
 *
 * A delete a caller asks for takes along only what they could delete themselves, and unlinks only
 * what they could change (`CascadeJudge`): a team member who may delete their submission may not
 * delete the judges' scores of it by doing so, nor un-award its prize (a probe did both). Otherwise
 * the whole delete is refused (403), naming those objects, or, of one the caller may not view, only
 * its model; nothing is deleted. What each caller may is their x-ACLs' to say, as for re-links
 * (relinks.ts): admins, by `allow g:admin all`, take everything along; the service's own code
 * (`event.db`) is asked nothing. An object whose write-once link the delete would empty (a parcel's
 * `depot`) only an admin unlinks, with auth off too: a courier who may delete her depot must not so
 * take its parcels out of the rules that read that link (a probe did).
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceDatabase } from '../database.js';
import type { Model } from '../model.js';
import { conflict, HttpError } from '../errors.js';
import { ConstraintViolation } from '../repository.js';
import { newEvent } from '../outbox/event.js';
import { text, withArticle } from '../text.js';
import { inSlices, previousStates, recordUpdated } from './moved-links.js';
import { modelDeleteRoute, modelRoute, type Policy } from './policy.js';
import { mayChangeByLink } from './relinks.js';
import { linkKeys } from './serialize.js';
import { neededBy, requiredLink } from './required-links.js';

type Rec = Record<string, unknown>;

/** What a delete takes with it, by model: the objects deleted (as they were), those unlinked by key. */
interface Cascade {
  readonly deleted: Map<Model, Rec[]>;
  readonly unlinked: Map<Model, Map<string, Rec>>;
  /** The deleted object's relationship through which each model's objects were first taken (a refusal's `field`). */
  readonly via: Map<Model, string>;
  /** Of the objects unlinked, by key, those whose link emptied is write-once: its name. */
  readonly fixed: Map<Model, Map<string, string>>;
}

/**
 * Whether the caller whose request deletes may delete, or change the links of, an object a delete
 * takes with it; and the error that refuses the delete when they may not.
 */
export interface CascadeJudge {
  /** False when the x-ACLs restrict nothing (auth off): only write-once links are then asked of. */
  readonly restricts: boolean;
  mayDelete(model: Model, object: Rec): Promise<boolean>;
  mayUnlink(model: Model, object: Rec): Promise<boolean>;
  mayView(model: Model, object: Rec): Promise<boolean>;
  /** Whether the caller may empty `link`, a write-once link of `object` (admins only). */
  mayEmpty(model: Model, object: Rec, link: string): boolean;
  refusal(refused: readonly TakenAlong[]): Error;
}

/** An object a delete would take along that the caller may not: its model, key (if they may view it), and how. */
export interface TakenAlong {
  readonly model: string;
  readonly key?: string;
  readonly deleted: boolean;
  /** The deleted object's relationship that reaches it. */
  readonly field: string;
  /** Its write-once link that the delete would empty, where that is why. */
  readonly fixed?: string;
}

/** The judge of what `request`'s delete may take along (with auth off, of write-once links alone). */
export function cascadeJudge(policy: Policy, request: FastifyRequest): CascadeJudge {
  const may = (permission: 'view' | 'delete', route: ReturnType<typeof modelRoute>, object: Rec) =>
    policy.may(request, permission, route, route.kind === 'item' ? object : undefined);
  return {
    restricts: policy.restricts,
    mayDelete: (model, object) => may('delete', modelDeleteRoute(model), object),
    mayUnlink: (model, object) => mayChangeByLink(policy, request, model, object),
    mayView: (model, object) => may('view', modelRoute(model), object),
    mayEmpty: (model, object, link) => policy.writable(request, model, object)(link),
    refusal(refused) {
      // An object unlinked (a link nullified) is changed, not taken: said as such (a probe was told
      // of a card it would keep that the delete "would take with it").
      // A write-once link is no right of the caller's on the object: said as the link's rule (a
      // probe's member was told she may not change her own sign-up).
      const acts = refused.map((r) =>
        r.deleted
          ? `delete ${describe(r)}, which this delete would take with it`
          : r.fixed
            ? `empty the ${r.fixed} of ${describe(r)}, which this delete would unlink: it is write-once, which only an admin changes`
            : `change ${describe(r)}, which this delete would unlink`,
      );
      const error = policy.refusal(request, acts.join(', nor '));
      return new HttpError(
        error.statusCode,
        error.message,
        refused.map((r) => ({
          field: r.field,
          message: r.fixed
            ? `unlinks ${describe(r)}, whose ${r.fixed} is write-once: only an admin empties it`
            : `${r.deleted ? 'deletes' : 'unlinks'} ${describe(r)}, which you may not ${r.deleted ? 'delete' : 'change'}`,
        })),
        error.headers,
      );
    },
  };
}

/** `Score 4`, or of an object the caller may not view, `a Score you may not view` (its key is not said). */
function describe(taken: TakenAlong): string {
  return taken.key === undefined ? `${withArticle(taken.model)} you may not view` : `${taken.model} ${taken.key}`;
}

/**
 * A delete that a RESTRICT relationship refused, as the database says it: every such relationship
 * of the model (SQLite and PostgreSQL do not say which held it). Read after the delete was undone,
 * only those that hold objects of `keys` are named (a probe went looking for swaps that did not
 * exist). `error` as it was, when it is another.
 */
export async function restrictedBy(db: ServiceDatabase, model: Model, keys: readonly unknown[], error: unknown) {
  if (!(error instanceof ConstraintViolation) || error.kind !== 'foreign_key' || error.fields.length < 2) return error;
  const holding: string[] = [];
  for (const name of error.fields) {
    const relation = model.relation(name);
    if (!relation || relation.local) continue;
    const held = await db.repository(relation.target).keys({ [relation.inverse]: { in: [...keys] } });
    if (held.length) holding.push(name);
  }
  return holding.length ? new ConstraintViolation('foreign_key', holding, error.message) : error;
}

/** Whether deleting an object of `model` deletes or unlinks others: its delete then reads them first. */
export function cascades(model: Model): boolean {
  return model.relations.some((r) => !r.local && r.onDelete !== 'restrict');
}

/**
 * `remove`, the delete of the objects `keys` of `model` (with their own events); then the events
 * of the objects it deleted or unlinked with them.
 */
export async function withCascades<R>(
  db: ServiceDatabase,
  model: Model,
  keys: readonly unknown[],
  remove: () => Promise<R>,
  judge?: CascadeJudge,
): Promise<R> {
  if (!cascades(model)) return remove();
  const cascade: Cascade = { deleted: new Map(), unlinked: new Map(), via: new Map(), fixed: new Map() };
  const taken = new Map<Model, Set<string>>([[model, new Set(keys.map(text))]]);
  await follow(db, model, keys, cascade, taken);
  // First what the caller may not take along: a RESTRICT's 409 names keys they may not view.
  if (judge) await refuseUnallowed(judge, cascade, taken);
  await refuseRestricted(db, cascade, taken);
  // The objects it unlinks and does not take, by model name (as they were, where their events say it).
  const left = unlinkedKeys(cascade, taken);
  const befores = await previousStates(db, left);
  const result = await remove();
  for (const [target, objects] of cascade.deleted)
    await db.appendEvents(objects.map((object) => newEvent(db.models, target, 'delete', object)));
  await recordUpdated(db, left, befores);
  return result;
}

/** The objects a cascade unlinks and does not delete, per model name. */
function unlinkedKeys(cascade: Cascade, taken: ReadonlyMap<Model, ReadonlySet<string>>): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>();
  for (const [target, unlinked] of cascade.unlinked)
    keys.set(target.name, new Set([...unlinked.keys()].filter((key) => !taken.get(target)?.has(key))));
  return keys;
}

/** At most this many objects are named in a refusal (a submission with ten thousand scores names ten). */
const MOST_NAMED = 10;

/**
 * Throws `judge`'s refusal when the delete takes along an object the caller may not delete, or
 * unlinks one (and does not delete it) they may not change, or whose write-once link they may not
 * empty; each object is asked once.
 */
async function refuseUnallowed(
  judge: CascadeJudge,
  cascade: Cascade,
  taken: ReadonlyMap<Model, ReadonlySet<string>>,
): Promise<void> {
  if (!judge.restricts && cascade.fixed.size === 0) return;
  const refused: TakenAlong[] = [];
  // Of those the caller may not view, each model and way once: how many there are is not said.
  const unseen = new Set<string>();
  const refuse = async (target: Model, object: Rec, deleted: boolean, field: string, fixed?: string) => {
    const why = fixed === undefined ? {} : { fixed };
    if (!(await judge.mayView(target, object))) {
      const way = `${target.name} ${String(deleted)} ${field}`;
      if (!unseen.has(way)) refused.push({ model: target.name, deleted, field, ...why });
      unseen.add(way);
    } else if (refused.length < MOST_NAMED) {
      refused.push({ model: target.name, deleted, field, key: text(object[target.primaryKey]), ...why });
    }
  };
  if (judge.restricts)
    for (const [target, objects] of cascade.deleted)
      for (const object of objects)
        if (!(await judge.mayDelete(target, object))) await refuse(target, object, true, cascade.via.get(target)!);
  for (const [target, unlinked] of cascade.unlinked)
    for (const [key, object] of unlinked) {
      if (taken.get(target)?.has(key)) continue;
      const fixed = cascade.fixed.get(target)?.get(key);
      if (fixed !== undefined && !judge.mayEmpty(target, object, fixed))
        await refuse(target, object, false, cascade.via.get(target)!, fixed);
      else if (judge.restricts && !(await judge.mayUnlink(target, object)))
        await refuse(target, object, false, cascade.via.get(target)!);
    }
  if (refused.length) throw judge.refusal(refused);
}

/** Reads what deleting `keys` of `model` deletes (recursively) and unlinks, into `cascade`. */
async function follow(
  db: ServiceDatabase,
  model: Model,
  keys: readonly unknown[],
  cascade: Cascade,
  taken: Map<Model, Set<string>>,
): Promise<void> {
  // Before what links to them is read: an object linked to them meanwhile would be taken unread (lockForDelete).
  await db.repository(model.name).lockForDelete(keys);
  for (const relation of model.relations) {
    if (relation.local || relation.onDelete === 'restrict') continue;
    const target = db.models.get(relation.target)!;
    const linked = await linkedTo(db, target, relation.inverse, keys);
    if (relation.onDelete === 'nullify') {
      if (linked.length && requiredLink(target, relation.foreignKey)) throw neededBy(model, relation.name);
      const unlinked = cascade.unlinked.get(target) ?? new Map<string, Rec>();
      for (const object of linked) unlinked.set(text(object[target.primaryKey]), object);
      cascade.unlinked.set(target, unlinked);
      if (linked.length && target.field(relation.inverse)?.writeOnce) {
        const fixed = cascade.fixed.get(target) ?? new Map<string, string>();
        for (const object of linked) fixed.set(text(object[target.primaryKey]), relation.inverse);
        cascade.fixed.set(target, fixed);
      }
      if (!cascade.via.has(target)) cascade.via.set(target, cascade.via.get(model) ?? relation.name);
      continue;
    }
    // A cascade may come back round (a tree of categories): each object is deleted once.
    const seen = taken.get(target) ?? new Set<string>();
    taken.set(target, seen);
    const fresh = linked.filter((object) => !seen.has(text(object[target.primaryKey])));
    if (fresh.length === 0) continue;
    // The delete's own relationship that takes them, however deep (a refusal names it as its field).
    if (!cascade.via.has(target)) cascade.via.set(target, cascade.via.get(model) ?? relation.name);
    for (const object of fresh) seen.add(text(object[target.primaryKey]));
    cascade.deleted.set(target, [...(cascade.deleted.get(target) ?? []), ...fresh]);
    await follow(
      db,
      target,
      fresh.map((object) => object[target.primaryKey]),
      cascade,
      taken,
    );
  }
}

/**
 * An object the delete would take with it (a club's team) that objects it leaves still refer to
 * by a `RESTRICT` link (the team's matches) refuses the whole delete, naming them, as the object's
 * own delete would: the database's refusal, deeper in the cascade, named none of it (a probe).
 * Objects the delete takes too (by another link) do not hold it.
 */
async function refuseRestricted(
  db: ServiceDatabase,
  cascade: Cascade,
  taken: ReadonlyMap<Model, ReadonlySet<string>>,
): Promise<void> {
  for (const [target, objects] of cascade.deleted) {
    for (const relation of target.relations) {
      if (relation.local || relation.onDelete !== 'restrict') continue;
      const holder = db.models.get(relation.target)!;
      const keys = objects.map((object) => object[target.primaryKey]);
      const left = (await linkedTo(db, holder, relation.inverse, keys)).filter(
        (object) => !taken.get(holder)?.has(text(object[holder.primaryKey])),
      );
      if (left.length === 0) continue;
      const held = text(left[0]![relation.inverse]);
      throw conflict(
        `related objects still refer to ${target.name} ${held} (${relation.name}), which this delete would take with it, so it cannot be deleted`,
        [
          {
            field: cascade.via.get(target)!,
            message: `${target.name} ${held} has ${relation.name} that prevent deleting it`,
          },
        ],
      );
    }
  }
}

/** The objects of `target` whose link `link` names one of `keys`, with their links. */
async function linkedTo(db: ServiceDatabase, target: Model, link: string, keys: readonly unknown[]): Promise<Rec[]> {
  const found: Rec[] = [];
  for await (const objects of inSlices(db, target, link, keys, linkKeys(target))) found.push(...objects);
  return found;
}
