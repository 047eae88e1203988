/**
 * What of its links an object shows a caller, and what a write of them may change.
 *
 * Embedding never shows more than the related model's own routes would: a related object the
 * caller may not view, by the x-ACL of that model's route (`Model.aclRoute`), is not embedded; its
 * own relationships are then not followed either. Decisions that do not depend on the object are
 * made once per model.
 *
 * A link kept in another object's row (a user's `stories`: each story holds the user's key) is
 * that object's as much as this one's. Among such links a caller is shown only the objects they
 * may view (by the x-ACL of the target model's route, `modelRoute`, as that model's own lists
 * decide), so that a list of keys tells no one which private objects exist, or how many; and a
 * write of such a list changes only what the caller could see: the objects they may not view stay
 * linked, so that a GET's answer sent back by a PUT moves nothing. A link kept in the object's own
 * row (a story's `owner`) is a field of that object, shown as its field privacy says.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceDatabase } from '../database.js';
import { badRequest } from '../errors.js';
import { keyValue, type Model, type ModelRegistry } from '../model.js';
import { isFieldFilter, RELATED_AMONG, UnknownReference, type Where } from '../repository.js';
import { text } from '../text.js';
import { modelRoute, type Policy, type RouteAccess } from './policy.js';
import { isObject, keyOf, keysOf, SLICE } from './relinks.js';
import { linkKeys, withLinkKeys } from './serialize.js';

type Rec = Record<string, unknown>;
/** What `Policy.reachable` answers. */
type Reach = Awaited<ReturnType<Policy['reachable']>>;

/**
 * In `records` (as loaded, before serialising): each embedded object the caller may not view
 * becomes its key where the link is the record's own field, and each link kept in the other
 * model's rows to an object the caller may not view, embedded or as a key, is left out (a
 * one-to-one one is null).
 */
export async function hideRefusedLinks(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  model: Model,
  records: readonly Rec[],
): Promise<void> {
  if (!policy.restricts || records.length === 0) return;
  const decisions = new Map<string, boolean>();
  const mayView = async (target: Model, object: Rec): Promise<boolean> => {
    const route = modelRoute(target);
    const once = !policy.needsObject(route);
    if (once && decisions.has(target.name)) return decisions.get(target.name)!;
    const allowed = await policy.may(
      request,
      'view',
      route,
      route.kind === 'item' ? withLinkKeys(target, object, db.models) : undefined,
    );
    if (once) decisions.set(target.name, allowed);
    return allowed;
  };
  const reach = reachOnce(policy, request);
  const viewable = (target: Model, keys: readonly unknown[]) => viewableKeys(policy, request, db, target, keys, reach);
  await walk(model, records, db, { mayView, viewable });
}

/** `Policy.reachable`, asked once a target model for one answer, however many links and levels lead to it. */
function reachOnce(policy: Policy, request: FastifyRequest): (route: RouteAccess) => Promise<Reach> {
  const selections = new Map<RouteAccess, Promise<Reach>>();
  return (route) => {
    let selection = selections.get(route);
    if (!selection) selections.set(route, (selection = policy.reachable(request, route)));
    return selection;
  };
}

interface Judge {
  mayView(model: Model, object: Rec): Promise<boolean>;
  viewable(model: Model, keys: readonly unknown[]): Promise<ReadonlySet<string>>;
}

/** What `hideRefusedLinks` leaves out of a list of links (null in place of a one-to-one). */
const LEFT_OUT = Symbol('left out');

async function walk(model: Model, records: readonly Rec[], db: ServiceDatabase, judge: Judge): Promise<void> {
  for (const relation of model.relations) {
    const target = db.models.get(relation.target);
    if (!target) continue;
    const elsewhere = !relation.local;
    const seen = elsewhere ? await judge.viewable(target, plainKeys(records, relation.name)) : undefined;
    const shown: Rec[] = [];
    const visible = async (value: unknown): Promise<unknown> => {
      if (!isObject(value)) return value === null || !seen || seen.has(text(value)) ? value : LEFT_OUT;
      if (!(await judge.mayView(target, value))) return elsewhere ? LEFT_OUT : value[target.primaryKey];
      shown.push(value);
      return value;
    };
    for (const record of records) {
      const value = record[relation.name];
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (const v of value) {
          const shownValue = await visible(v);
          if (shownValue !== LEFT_OUT) out.push(shownValue);
        }
        record[relation.name] = out;
      } else if (value !== undefined) {
        const shownValue = await visible(value);
        record[relation.name] = shownValue === LEFT_OUT ? null : shownValue;
      }
    }
    if (shown.length) await walk(target, shown, db, judge);
  }
}

/** The keys (not embedded objects) that `records` hold in `field`. */
function plainKeys(records: readonly Rec[], field: string): unknown[] {
  const keys: unknown[] = [];
  for (const record of records) for (const value of keysOf(record[field])) if (!isObject(value)) keys.push(value);
  return keys;
}

/** Of `keys` (of objects of `target`), the ones the caller may view, as text. */
export async function viewableKeys(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  target: Model,
  keys: readonly unknown[],
  reach: (route: RouteAccess) => Promise<Reach> = (route) => policy.reachable(request, route),
): Promise<ReadonlySet<string>> {
  if (!policy.restricts || keys.length === 0) return new Set(keys.map(text));
  const route = modelRoute(target);
  const selection = await reach(route);
  if (selection === true) return new Set(keys.map(text));
  if (selection === false) return new Set();
  if (selection !== null) return storedKeys(db, target, keys, selection);
  const repository = db.repository(target.name);
  const primaryKey = target.primaryKey;
  const shown = new Set<string>();
  for (let i = 0; i < keys.length; i += SLICE) {
    const among = { [primaryKey]: { in: keys.slice(i, i + SLICE) } };
    // A `{{principal}}` without `where` decides: asked of each object, as its own GET asks.
    for (const object of await repository.findMany({ where: among, include: linkKeys(target) })) {
      if (await policy.may(request, 'view', route, route.kind === 'item' ? object : undefined))
        shown.add(text(object[primaryKey]));
    }
  }
  return shown;
}

/** Which of `keys` (as the key is stored) name objects of `target`, among those `selection` selects when given. */
async function storedKeys(
  db: ServiceDatabase,
  target: Model,
  keys: readonly unknown[],
  selection?: Where<Rec>,
): Promise<Set<string>> {
  const repository = db.repository(target.name);
  const primaryKey = target.primaryKey;
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += SLICE) {
    const among = { [primaryKey]: { in: keys.slice(i, i + SLICE) } };
    const where = selection ? { AND: [among, selection] } : among;
    for (const object of await repository.findMany({ where, select: { [primaryKey]: true } }))
      found.add(text(object[primaryKey]));
  }
  return found;
}

/**
 * A write that names, for a link, objects the caller may not view or that do not exist is answered
 * with all of them in one 400, in the order it names them, before anything else asks about them:
 * otherwise the answers told them apart (a missing key was listed with the others, a hidden one
 * alone, one already linked to the written object first), and a member listed which private
 * reviews of their own application there are (a probe). `fields`: the links the request sets.
 */
export async function refuseUnknownLinks(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  model: Model,
  data: Rec,
  fields: readonly string[],
): Promise<void> {
  if (!policy.restricts) return;
  for (const relation of model.relations) {
    if (!fields.includes(relation.name)) continue;
    const target = db.models.get(relation.target)!;
    const named = keysOf(data[relation.name]).map((v) => keyOf(v, target));
    if (named.length === 0) continue;
    // A key the target's key cannot hold (`abc` for an integer) names nothing, as a missing one.
    const values = named.map((key) => keyValue(target, key));
    const keys = values.filter((key) => key !== undefined);
    // Stored and viewable, in one query: where every object is viewable, those stored.
    const selection = await policy.reachable(request, modelRoute(target));
    const known =
      selection === true
        ? await storedKeys(db, target, keys)
        : await viewableKeys(policy, request, db, target, keys, () => Promise.resolve(selection));
    const unknown = named.filter((_, i) => values[i] === undefined || !known.has(text(values[i])));
    if (unknown.length) throw new UnknownReference(relation.name, target.name, unknown);
  }
}

/**
 * `data` with, in each link kept in the other model's rows that the write sets, the objects linked
 * now to the object `ownKey` that the caller may not view: the write leaves them where they are.
 * One of them that the write names is refused as a key that names nothing (400), as one that is
 * not linked is (relinks.ts).
 */
export async function keepHiddenLinks(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  model: Model,
  ownKey: unknown,
  data: Rec,
): Promise<Rec> {
  if (!policy.restricts || ownKey === undefined || ownKey === null) return data;
  let kept: Rec | undefined;
  for (const relation of model.relations) {
    if (relation.local || !(relation.name in data)) continue;
    const target = db.models.get(relation.target)!;
    const related = db.repository(target.name);
    const wanted = new Set(keysOf(data[relation.name]).map((v) => text(keyOf(v, target))));
    const linked = await related.keys({ [relation.inverse]: ownKey });
    const seen = await viewableKeys(policy, request, db, target, linked);
    const hidden = linked.filter((k) => !seen.has(text(k)));
    if (hidden.length === 0) continue;
    // Named, it is answered as a key that names nothing, linked or not: which are, no answer tells.
    const named = hidden.find((k) => wanted.has(text(k)));
    if (named !== undefined) throw new UnknownReference(relation.name, target.name, [named]);
    kept ??= { ...data };
    kept[relation.name] =
      relation.cardinality === 'many'
        ? [...keysOf(data[relation.name]), ...hidden]
        : // A one-to-one partner the caller may not view stays, unless the write gives it another.
          (data[relation.name] ?? hidden[0]);
  }
  return kept ?? data;
}

/**
 * `where`, a client's filters on `model`, with each filter on a link kept in the other model's
 * rows asking only of the related objects the caller may view (`RELATED_AMONG`): else
 * `?scorecards=5`, or `?offer__isnull=false`, would tell of an object the caller's reads leave
 * out. Where that cannot be asked of the database (a `{{principal}}` without `where` decides), the
 * filter is refused (400), as one on a field the caller may not read is.
 */
export async function filtersAmongViewable(
  policy: Policy,
  request: FastifyRequest,
  models: ModelRegistry,
  model: Model,
  where: Where<Rec>,
): Promise<Where<Rec>> {
  if (!policy.restricts) return where;
  const reach = reachOnce(policy, request);
  const among = async (name: string, target: Model): Promise<Where<Rec> | undefined> => {
    const selected = await reach(modelRoute(target));
    if (selected === true) return undefined;
    if (selected === false) return { [target.primaryKey]: { in: [] } };
    if (selected === null)
      throw badRequest(`you may not filter by ${name}`, [
        { field: name, message: `whether you may view each ${target.name} is decided one at a time` },
      ]);
    return selected;
  };
  const restrict = async (w: Where<Rec>): Promise<Where<Rec>> => {
    let out: Rec | undefined;
    for (const [name, value] of Object.entries(w)) {
      let next: unknown = value;
      if (name === 'AND' || name === 'OR') next = await Promise.all((value as Where<Rec>[]).map((v) => restrict(v)));
      else if (name === 'NOT')
        next = Array.isArray(value)
          ? await Promise.all(value.map((v: Where<Rec>) => restrict(v)))
          : await restrict(value as Where<Rec>);
      else if (name === 'EXCEPT') next = await restrict(value as Where<Rec>);
      else if (name !== 'SEARCH' && value !== undefined) {
        const relation = model.relation(name);
        const target = relation && !relation.local ? models.get(relation.target) : undefined;
        const condition = target ? await among(name, target) : undefined;
        if (condition) next = { ...(isFieldFilter(value) ? value : { equals: value }), [RELATED_AMONG]: condition };
      }
      if (next !== value) (out ??= { ...w })[name] = next;
    }
    return out ?? w;
  };
  return restrict(where);
}
