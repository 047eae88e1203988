/**
 * A relationship write moves links: setting `stories` on a user points each listed story at the
 * user and unlinks the stories left out; setting a one-to-one `profile` takes that profile from
 * whoever had it. A caller may move a link only where they may change the objects it moves: every
 * object whose foreign key the write changes and, for a one-to-one link, every object that loses
 * its partner must pass the caller's `update` rules (the x-ACL of its model's route,
 * `Model.aclRoute`; admins only where no route updates that model: `modelUpdateRoute`). An object
 * put below a parent that a nested route creates objects below (`/spaces/{id}/memberships`: a
 * membership's `space`) must be one the caller may create there: a
 * move into a parent, or a create elsewhere that names it, asks what a create below it asks
 * (`RelationSpec.createdBelow`). One that does not refuses the whole request, before anything is
 * written.
 * The object being written is the route's to authorize; a link kept in its own row moves no one
 * else's foreign key. An object the write names that the caller may not view is answered as one
 * that does not exist (400), on either side of the link, and a refusal does not name an object the
 * caller may not view that the write would take a partner from: neither tells which hidden keys
 * exist, or what they are linked to.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceDatabase } from '../database.js';
import { HttpError } from '../errors.js';
import { UnknownReference } from '../repository.js';
import type { CreatedBelow, Model, RelationSpec } from '../model.js';
import { modelRoute, modelUpdateRoute, type Policy, type RouteAccess } from './policy.js';
import { linkKeys } from './serialize.js';
import { text, withArticle } from '../text.js';

type Rec = Record<string, unknown>;

/** Keys per statement when the objects a write moves are read (SQLite takes at most 32,766 parameters). */
export const SLICE = 500;

/**
 * An object that a write would re-link and that the caller may not change, or (`placing`) a parent
 * that a write would put an object below where the caller may not create one.
 */
export interface RefusedLink {
  /** The relationship of the written object that moves it. */
  readonly field: string;
  readonly model: string;
  /** Absent for an object the caller may not view, which only the write itself names, and for a new one. */
  readonly key?: unknown;
  /** The model of the object put below this one, when that is what is refused. */
  readonly placing?: string;
}

export interface LinkWrite {
  readonly model: Model;
  /** The object as it is before the write; undefined for a new one. */
  readonly object: Rec | undefined;
  /** What will be written (after handlers and processors). */
  readonly data: Rec;
  /** The relationships the caller's request sets (the body's, and the links of its own row PUT empties). */
  readonly fields: readonly string[];
}

/** Throws the policy's refusal (401 anonymous, else 403) when the write moves a link the caller may not. */
export async function checkRelinks(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  write: LinkWrite,
): Promise<void> {
  const refused = await refusedRelinks(policy, request, db, write);
  if (refused.length === 0) return;
  const error = policy.refusal(request, refusedActs(refused));
  throw relinkRefusal(error.statusCode, error.message, refused, error.headers);
}

/** What the caller may not do, for `Policy.refusal`: "change Story 2, which this write would link or unlink". */
export function refusedActs(refused: readonly RefusedLink[]): string {
  const moved = refused.filter((r) => !r.placing);
  const placed = refused.filter((r) => r.placing);
  return [
    ...(moved.length ? [`change ${moved.map(describe).join(', ')}`] : []),
    ...placed.map((r) => `create ${withArticle(r.placing!)} below ${describe(r)}`),
  ].join(', nor ');
}

/** The refusal of a write that would move links of objects the caller may not change. */
export function relinkRefusal(
  status: number,
  message: string,
  refused: readonly RefusedLink[],
  headers?: Readonly<Record<string, string>>,
): HttpError {
  return new HttpError(
    status,
    refused.some((r) => !r.placing) ? `${message}, which this write would link or unlink` : message,
    refused.map((r) => ({
      field: r.field,
      message: r.placing
        ? `puts ${withArticle(r.placing)} below ${describe(r)}, where you may not create one`
        : `moves the link of ${describe(r)}, which you may not change`,
    })),
    headers,
  );
}

/**
 * The objects `write` would re-link that the caller may not update (none when auth is off). When
 * there are none and it links to an object the caller may not view, throws what a key that names
 * nothing gets from the write itself (`UnknownReference`, 400): the same answer, in the same case.
 */
export async function refusedRelinks(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  write: LinkWrite,
): Promise<RefusedLink[]> {
  if (!policy.restricts) return [];
  const refused: RefusedLink[] = [];
  const hiddenRefused: RefusedLink[] = [];
  const mayChange = (model: Model, object: Rec) => mayChangeByLink(policy, request, model, object);
  const mayView = (model: Model, object: Rec) => {
    const route = modelRoute(model);
    return policy.may(request, 'view', route, route.kind === 'item' ? object : undefined);
  };
  let unseen: UnknownReference | undefined;
  // What the objects a relationship kept on the other side gains are put below: the written object as
  // it will be, its links as keys (`rule.parent` as its model's type has it).
  const parent = linksAsKeys(db, write.model, { ...write.object, ...write.data });
  const ownKey = parent[write.model.primaryKey] ?? undefined;
  for (const relation of write.model.relations) {
    if (!write.fields.includes(relation.name) || write.data[relation.name] === undefined) continue;
    if (relation.local) {
      for (const key of gainedKeys(db, write, relation)) {
        const refusal = await linkTarget(policy, request, db, write.model, relation, key);
        const link = { field: relation.name, model: relation.target, key };
        if (refusal === 'unchangeable') refused.push(link);
        else if (refusal === 'unplaceable') refused.push({ ...link, placing: write.model.name });
        else if (refusal === 'unseen') unseen ??= new UnknownReference(relation.name, relation.target, [key]);
      }
    }
    const moved = relation.local
      ? await lostPartners(db, write, relation)
      : await movedOnTheOtherSide(db, write, relation);
    const unseenObjects = new Set<Rec>();
    for (const { model, object, role, leftFor } of moved) {
      const key = object[model.primaryKey];
      // An object named in the write that the caller may not view is one that does not exist (400),
      // and so has no partner to lose.
      if (role === 'gained' && !(await mayView(model, object))) {
        unseen ??= new UnknownReference(relation.name, model.name, [key]);
        unseenObjects.add(object);
        continue;
      }
      if (leftFor && unseenObjects.has(leftFor)) continue;
      if (!(await mayChange(model, object))) {
        // An object the caller may not view that the write would take from its partner (a unit's
        // hidden locker, a gained object's former partner) is not named: said beside the objects
        // they see, it told a probe which units had a locker, and its key, while GET showed null.
        // Alone, the refusal says only that the write would move what they may not change.
        if (role !== 'gained' && !(await mayView(model, object)))
          hiddenRefused.push({ field: relation.name, model: model.name });
        else refused.push({ field: relation.name, model: model.name, key });
      } else if (role === 'gained' && !(await mayCreateBelow(policy, request, model, relation.inverse, parent))) {
        refused.push({ field: relation.name, model: write.model.name, key: ownKey, placing: model.name });
      }
    }
  }
  if (refused.length) return refused;
  if (unseen) throw unseen;
  return hiddenRefused.slice(0, 1);
}

/**
 * What a caller may not do with the object `key` of `relation`'s target, by linking to it from
 * the object they write (a link kept in that object's own row; a nested route's URL links to its
 * parent the same way: RouteContext.createdLink):
 * - `unseen`: they may not view it. Its link is refused as the link of an object that does not
 *   exist (400), so that a write can neither probe which keys exist nor put its object into
 *   someone else's private one.
 * - `unchangeable`: a one-to-one link takes the target's only partner, as writing the link from
 *   the target's side would: they must be able to update the target (403 otherwise).
 * Null when they may link, when auth is off, and when nothing has that key (the write's own 400).
 */
async function linkTarget(
  policy: Policy,
  request: FastifyRequest,
  db: ServiceDatabase,
  model: Model,
  relation: RelationSpec,
  key: unknown,
): Promise<'unseen' | 'unchangeable' | 'unplaceable' | null> {
  if (!policy.restricts) return null;
  const target = db.models.get(relation.target)!;
  const route = modelRoute(target);
  const oneToOne = target.relation(relation.inverse)?.cardinality === 'one';
  const byObject =
    (route.kind === 'item' && (oneToOne || policy.needsObject(route))) ||
    createdBelow(model, relation).some((below) => policy.collectionNeedsParent(below));
  const object = byObject ? await loadOne(db, target, key) : {};
  if (!object) return null;
  const onItem = route.kind === 'item' ? object : undefined;
  if (!(await policy.may(request, 'view', route, onItem))) return 'unseen';
  if (oneToOne && !(await mayChangeByLink(policy, request, target, object))) return 'unchangeable';
  return (await mayCreateBelow(policy, request, model, relation.name, object)) ? null : 'unplaceable';
}

/** Whether the caller may change `object` of `model` by its links (`modelUpdateRoute`). */
export function mayChangeByLink(policy: Policy, request: FastifyRequest, model: Model, object: Rec): Promise<boolean> {
  const route = modelUpdateRoute(model);
  return policy.may(request, 'update', route, route.kind === 'item' ? object : undefined);
}

/**
 * Whether the caller may create an object of `model` below `parent`, the target of its link
 * `link`, on one of the nested routes that create them there: true when no route does (a link
 * asks only that the caller may view its target).
 */
async function mayCreateBelow(
  policy: Policy,
  request: FastifyRequest,
  model: Model,
  link: string,
  parent: Rec,
): Promise<boolean> {
  const relation = model.relation(link);
  if (!relation?.local) return true;
  const routes = createdBelow(model, relation);
  for (const route of routes) if (await policy.may(request, 'create', route, undefined, parent)) return true;
  return routes.length === 0;
}

/** `relation.createdBelow` as the policy takes routes, made once per relation. */
function createdBelow(model: Model, relation: RelationSpec): readonly RouteAccess[] {
  let routes = belowRoutes.get(relation);
  if (!routes) {
    // Below the link's target: the parent its rules are given is of that model.
    const asRoute = (below: CreatedBelow): RouteAccess => ({
      ...below,
      model: { name: model.name },
      parent: { model: { name: relation.target } },
    });
    belowRoutes.set(relation, (routes = (relation.createdBelow ?? []).map(asRoute)));
  }
  return routes;
}

const belowRoutes = new WeakMap<RelationSpec, readonly RouteAccess[]>();

/** The keys a link kept in the written object's row points at after the write and did not before. */
function gainedKeys(db: ServiceDatabase, write: LinkWrite, relation: RelationSpec): unknown[] {
  const target = db.models.get(relation.target)!;
  const related = db.repository(target.name);
  const before = new Set(keysOf(write.object?.[relation.name]).map((v) => text(keyOf(v, target))));
  return keysOf(write.data[relation.name])
    .map((v) => related.keyValue(keyOf(v, target)))
    .filter((k) => k !== undefined && k !== null && !before.has(text(k)));
}

interface Moved {
  readonly model: Model;
  readonly object: Rec;
  /**
   * How the write moves it: `gained`, named in the write's own value; `lost`, linked to the written
   * object before (its key is in that object); `loser`, a one-to-one partner a gained object leaves.
   */
  readonly role: 'gained' | 'lost' | 'loser';
  /** A loser's: the gained object that leaves it. */
  readonly leftFor?: Rec;
}

/**
 * A link kept on the other side (`stories` of a user: the story holds the key): the related
 * objects it gains and loses; for a one-to-one link, also the objects the gained ones leave.
 */
async function movedOnTheOtherSide(db: ServiceDatabase, write: LinkWrite, relation: RelationSpec): Promise<Moved[]> {
  const { model } = write;
  const target = db.models.get(relation.target)!;
  const related = db.repository(target.name);
  const ownKey = write.object?.[model.primaryKey] ?? write.data[model.primaryKey];
  const linked = new Set(
    ownKey === undefined || ownKey === null ? [] : (await related.keys({ [relation.inverse]: ownKey })).map(String),
  );
  const wanted = keysOf(write.data[relation.name])
    .map((k) => related.keyValue(k))
    .filter((k) => k !== undefined);
  const wantedText = new Set(wanted.map(String));
  const gained = wanted.filter((k) => !linked.has(text(k)));
  const lost = [...linked].filter((k) => !wantedText.has(k)).map((k) => related.keyValue(k));
  const moving = [...new Set([...gained, ...lost])];
  if (moving.length === 0) return [];
  const objects: Rec[] = [];
  // In slices: SQLite takes at most 32,766 parameters in one statement.
  for (let i = 0; i < moving.length; i += SLICE) {
    objects.push(
      ...(await related.findMany({
        where: { [target.primaryKey]: { in: moving.slice(i, i + SLICE) } },
        include: linkKeys(target),
      })),
    );
  }
  const gainedText = new Set(gained.map(String));
  const out: Moved[] = objects.map((object) => ({
    model: target,
    object,
    role: gainedText.has(text(object[target.primaryKey])) ? 'gained' : 'lost',
  }));
  if (relation.cardinality === 'one') {
    // A one-to-one link taken from another object: that object loses its partner.
    for (const object of objects) {
      if (!gainedText.has(text(object[target.primaryKey]))) continue;
      const previous = keyOf(object[relation.inverse], model);
      if (previous === null || text(previous) === text(ownKey)) continue;
      const loser = await loadOne(db, model, previous);
      if (loser) out.push({ model, object: loser, role: 'loser', leftFor: object });
    }
  }
  return out;
}

/**
 * A link kept in the written object's own row (`user` of a profile): it moves only that object's
 * foreign key. For a one-to-one link the object it pointed at loses its partner; the object it
 * will point at cannot have another (a unique key: 409).
 */
async function lostPartners(db: ServiceDatabase, write: LinkWrite, relation: RelationSpec): Promise<Moved[]> {
  const target = db.models.get(relation.target)!;
  if (target.relation(relation.inverse)?.cardinality !== 'one' || !write.object) return [];
  const before = keyOf(write.object[relation.name], target);
  const after = write.data[relation.name];
  if (before === null || text(before) === text(keyOf(after, target))) return [];
  const partner = await loadOne(db, target, before);
  return partner ? [{ model: target, object: partner, role: 'lost' }] : [];
}

async function loadOne(db: ServiceDatabase, model: Model, key: unknown): Promise<Rec | null> {
  return db.repository(model.name).findUnique({
    where: { [model.primaryKey]: key },
    include: linkKeys(model),
  });
}

/**
 * `object` with each relationship as its key (or keys), as its model's type has it: an object read
 * with its `_nested_relationships` embedded gave a principal's `rule.parent` the embedded objects
 * (another user's record, its password hash and all), and a principal that compared the key refused
 * a re-link it allows from the other side.
 */
export function linksAsKeys(db: ServiceDatabase, model: Model, object: Rec): Rec {
  const out = { ...object };
  for (const relation of model.relations) {
    const value = out[relation.name];
    const target = db.models.get(relation.target);
    if (value === undefined || value === null || !target) continue;
    out[relation.name] = Array.isArray(value) ? value.map((v) => keyOf(v, target)) : keyOf(value, target);
  }
  return out;
}

/** The keys a relationship value names: a key, a list of them, or null. */
export function keysOf(value: unknown): unknown[] {
  return value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A related object's key, whether the record holds the key or the embedded object. */
export function keyOf(value: unknown, model: Model): unknown {
  if (value === null || value === undefined) return null;
  return typeof value === 'object' ? ((value as Rec)[model.primaryKey] ?? null) : value;
}

/** An embedded object (or any JSON object), not a key, a list or null. */
export function isObject(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(link: RefusedLink): string {
  if (link.placing && link.key === undefined) return `the new ${link.model}`;
  return 'key' in link ? `${link.model} ${text(link.key)}` : `a ${link.model} you may not view`;
}
