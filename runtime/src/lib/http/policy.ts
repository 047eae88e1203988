/**
 * Who may do what, and who sees which fields. With `auth = false` every request may do
 * everything the RAML lists and sees every field but secrets; with `auth = true`
 * the ACL policy of lib/auth replaces this one.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';
import type { Model } from '../model.js';
import type { Where } from '../repository.js';

export type Permission = 'view' | 'create' | 'update' | 'delete' | 'options';

/** What the policy needs to know of a route. */
export interface RouteAccess {
  readonly kind: 'collection' | 'item' | 'singular' | 'attribute';
  /** The x-ACL that guards the route; null: admins only. */
  readonly acl: string | null;
  /** The model whose objects the rules decide on: the `{{principal}}` functions are told its name. */
  readonly model?: { readonly name: string; readonly primaryKey?: string };
  /** A nested route's parent: its model is the one of the `parent` its collection rules are given. */
  readonly parent?: { readonly model: { readonly name: string } };
}

export interface Policy {
  /**
   * Throws 401 (anonymous) or 403 unless the request may use `permission` on the route's
   * collection (`object` undefined) or on `object` (item rules, then collection rules).
   */
  authorize(
    request: FastifyRequest,
    permission: Permission,
    route: RouteAccess,
    object?: Record<string, unknown>,
    parent?: Record<string, unknown>,
  ): Promise<void>;
  /** Whether `authorize` would allow it (no error): for decisions that hide rather than refuse. */
  may(
    request: FastifyRequest,
    permission: Permission,
    route: RouteAccess,
    object?: Record<string, unknown>,
    parent?: Record<string, unknown>,
  ): Promise<boolean>;
  /**
   * Whether the route's collection rules call user functions, which a nested route gives the
   * parent the URL names (`AclRule.parent`): the parent is then read before they decide.
   */
  collectionNeedsParent(route: RouteAccess): boolean;
  /**
   * The objects of the route's collection the request may view by the item rules: all (`true`),
   * none (`false`), or those a condition selects. Lists, counts and searches apply it, so that they
   * show no object its own GET would refuse (lib/auth/acl.ts `selectable`).
   */
  viewable(request: FastifyRequest, route: RouteAccess): Promise<boolean | Where<Record<string, unknown>>>;
  /**
   * The objects of the route's model the request may view where it meets them away from their
   * routes, as keys in another object's links (lib/http/hidden-links.ts): `viewable`, with the
   * collection rules asked first instead of assumed. Null when a `{{principal}}` without `where`
   * decides some of them: then each object is decided by `may`.
   */
  reachable(request: FastifyRequest, route: RouteAccess): Promise<boolean | Where<Record<string, unknown>> | null>;
  /** False when every request may do everything (auth off): nothing needs hiding. */
  readonly restricts: boolean;
  /**
   * Whether deciding on an item needs the item (its ACL calls user functions). When it does not,
   * the routes decide before looking the item up, so a refused caller learns nothing about which
   * keys exist.
   */
  needsObject(route: RouteAccess): boolean;
  /**
   * Whether which fields of an object of `model` a request may see or write can depend on the
   * object (a user's own record): `visibleFields`, `writable` and `checkWritable` then want it.
   */
  fieldsNeedObject(model: Model): boolean;
  /** The fields of `model` (of `object`, when given) this request may see (null: all). */
  visibleFields(request: FastifyRequest, model: Model, object?: Record<string, unknown>): ReadonlySet<string> | null;
  /**
   * Whether the request may write a field of `model` (of `object`, when given): `checkWritable`'s
   * rule, field by field. `creating`: the write makes a new object (write-once fields are written
   * then); anything else changes objects that exist, read or not.
   */
  writable(
    request: FastifyRequest,
    model: Model,
    object?: Record<string, unknown>,
    creating?: boolean,
  ): (field: string) => boolean;
  /** Throws 403 when the body writes fields (of `object`, when given) the request may not write. */
  checkWritable(
    request: FastifyRequest,
    model: Model,
    fields: readonly string[],
    object?: Record<string, unknown>,
    creating?: boolean,
  ): void;
  /**
   * The body of a change to write: without `current_password`, the proof a user gives when
   * changing their own password, and without a password sent as it is stored. `object`: the
   * object changed, as stored; undefined for a change of many. Throws 403 when the proof is
   * missing or wrong (auth/password-change.ts).
   */
  provePasswordChange(
    request: FastifyRequest,
    model: Model,
    body: Record<string, unknown>,
    object: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>>;
  /** The largest page this request may read. */
  maxLimit(request: FastifyRequest): number;
  /** The error that refuses `what` ("read settings"): 401 for anonymous callers, else 403. */
  refusal(request: FastifyRequest, what: string): HttpError;
  /** The key an item URL names, as the routes look it up (`/users/self` is the caller). */
  itemKey(request: FastifyRequest, model: Model, key: unknown): unknown;
  /**
   * For a request that stays open (the change feed): whether its credentials still identify whom
   * they did, the caller's rights read again (auth/identity.ts `stillIdentified`).
   */
  stillIdentified(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** The caller's own record, by model and key (as events name it), or null when anonymous. */
  ownRecord(request: FastifyRequest): { readonly model: string; readonly pk: string } | null;
  /**
   * The request as judged for what happened before the caller's account existed: their groups,
   * but a key no object names (auth/identity.ts `asNewcomer`).
   */
  asNewcomer(request: FastifyRequest): FastifyRequest;
}

const ADMINS_ONLY: RouteAccess = { kind: 'item', acl: null };

/**
 * The route whose x-ACL decides on the objects of `model` met away from its own routes (embedded,
 * linked, moved by a link, below it on a nested route, in the change feed): a route of one of its
 * objects (top-level first), else its collection route, else admins only (`Model.aclRoute`,
 * src/ir/model-route.ts).
 */
export function modelRoute(model: Model): RouteAccess {
  let route = modelRoutes.get(model);
  if (!route) modelRoutes.set(model, (route = { ...(model.aclRoute ?? ADMINS_ONLY), model }));
  return route;
}

/**
 * The route whose x-ACL decides who may change an object of `model` by moving its links from
 * another model's side (lib/http/relinks.ts): the route that updates its objects (`modelRoute`, or
 * `aclRoute.updateRules` where another route does), admins only where none does
 * (`aclRoute.updatable`): what the API serves no one a way to change, a link written elsewhere
 * does not change either.
 */
export function modelUpdateRoute(model: Model): RouteAccess {
  return actingRoute(model, 'update', updateRoutes);
}

/**
 * The route whose x-ACL decides who may delete an object of `model` that another's delete takes
 * with it (lib/http/cascades.ts): the route that deletes its objects (`aclRoute.deleteRules` where
 * it is not `modelRoute`), admins only where none does (`aclRoute.deletable`).
 */
export function modelDeleteRoute(model: Model): RouteAccess {
  return actingRoute(model, 'delete', deleteRoutes);
}

function actingRoute(model: Model, act: 'update' | 'delete', made: WeakMap<Model, RouteAccess>): RouteAccess {
  const rules = model.aclRoute;
  if (!rules) return modelRoute(model);
  const served = act === 'update' ? rules.updatable : rules.deletable !== false;
  const own = act === 'update' ? rules.updateRules : rules.deleteRules;
  if (served && !own) return modelRoute(model);
  let route = made.get(model);
  if (!route) made.set(model, (route = { ...(served ? own! : ADMINS_ONLY), model }));
  return route;
}

const updateRoutes = new WeakMap<Model, RouteAccess>();
const deleteRoutes = new WeakMap<Model, RouteAccess>();

const modelRoutes = new WeakMap<Model, RouteAccess>();

/** Whether `name` is a read-only field of `model` (`FieldSpec.readOnly`): only admins write it. */
export function isReadOnly(model: Model, name: string): boolean {
  return model.field(name)?.readOnly === true;
}

/** Why a body may not write a read-only field. */
export const READ_ONLY = 'is read-only: set by the service';

/**
 * Whether only admins (and the service's own code) write `name` of `model` in this write: a
 * read-only field always, a write-once one (`FieldSpec.writeOnce`) unless the write creates.
 */
export function isFixed(model: Model, name: string, creating: boolean): boolean {
  const field = model.field(name);
  return field?.readOnly === true || (!creating && field?.writeOnce === true);
}

/** Why a body may not write `name`, which `isFixed` says it may not. */
export function fixedRefusal(model: Model, name: string): string {
  return isReadOnly(model, name) ? READ_ONLY : WRITE_ONCE;
}

/** Why a change may not write a write-once field. */
export const WRITE_ONCE = 'is write-once: only the create of the object sets it';

export function openPolicy(maxLimit: number): Policy {
  return {
    authorize: () => Promise.resolve(),
    may: () => Promise.resolve(true),
    viewable: () => Promise.resolve(true),
    reachable: () => Promise.resolve(true),
    restricts: false,
    needsObject: () => false,
    collectionNeedsParent: () => false,
    fieldsNeedObject: () => false,
    visibleFields: () => null,
    // Without logins nobody is an admin: read-only fields, and write-once ones once created, are the service's own code's alone.
    writable:
      (_request, model, _object, creating = false) =>
      (name) =>
        !isFixed(model, name, creating),
    checkWritable(_request, model, fields, _object, creating = false) {
      const refused = fields.filter((name) => isFixed(model, name, creating));
      if (refused.length)
        throw new HttpError(
          403,
          `you may not write ${refused.join(', ')}`,
          refused.map((field) => ({ field, message: fixedRefusal(model, field) })),
        );
    },
    // Without logins there is no one whose password it is: the proof is not asked for, and not written.
    provePasswordChange: (_request, _model, { current_password: _proof, ...body }) => Promise.resolve(body),
    maxLimit: () => maxLimit,
    itemKey: (_request, _model, key) => key,
    refusal: (_request, what) => new HttpError(403, `you may not ${what}`),
    stillIdentified: () => Promise.resolve(true),
    ownRecord: () => null,
    asNewcomer: (request) => request,
  };
}
