/**
 * The policy with `auth = true`: every route asks its x-ACL (resources without one
 * are for `g:admin` only); anonymous callers who are refused get 401, logged-in ones 403. Fields:
 * anonymous callers see `_public_fields`, logged-in ones `_auth_fields` (and their groups'
 * `_group_fields`), nobody but admins sees `_hidden_fields`, and nobody ever sees a password hash.
 * Writing a field one cannot see is a 403, and only admins may change anyone's groups.
 */
import type { FastifyRequest } from 'fastify';
import { HttpError, notFound } from '../errors.js';
import { withArticle } from '../text.js';
import type { Model, ModelRegistry } from '../model.js';
import { fixedRefusal, isFixed, type Permission, type Policy, type RouteAccess } from '../http/policy.js';
import {
  ADMIN_ONLY,
  collectionCallsUserCode,
  decide,
  decidesWithoutObject,
  reachableSelection,
  selectable,
  type Acl,
} from './acl.js';
import { userModel, type AuthContext } from './context.js';
import { asNewcomer, callerOf, isAdmin, stillIdentified } from './identity.js';
import { provePasswordChange } from './password-change.js';
import { SELF } from './logins.js';

const VERBS: Readonly<Record<Permission, string>> = {
  view: 'read',
  create: 'create',
  update: 'change',
  delete: 'delete',
  options: 'ask about',
};

export function aclPolicy(ctx: AuthContext): Policy {
  const modelOf = (route: RouteAccess): string => route.model?.name ?? '';
  /** The decision of the route's x-ACL for the caller, below `parent` (given with its model's name). */
  const decideOn = (
    request: FastifyRequest,
    permission: Permission,
    route: RouteAccess,
    object: Record<string, unknown> | undefined,
    parent: Record<string, unknown> | undefined,
  ) =>
    decide(
      aclOf(route),
      callerOf(request),
      permission,
      request,
      modelOf(route),
      object,
      parent && { object: parent, model: route.parent?.model.name },
    );
  const aclOf = (route: RouteAccess): Acl =>
    route.acl === null ? ADMIN_ONLY : (ctx.spec.acls[route.acl] ?? ADMIN_ONLY);
  const visible = visibility(ctx.db.models);
  const users = userModel(ctx);
  /** The requests whose URL names their caller as `self` (`itemKey`). */
  const askedForSelf = new WeakSet<FastifyRequest>();
  /** A user's own record: they see and write all of it but hidden fields and `groups`. */
  const ownRecord = (model: Model, object: Record<string, unknown> | undefined) => (request: FastifyRequest) =>
    object !== undefined && model.name === users.name && callerOf(request).id === String(object[model.primaryKey]);
  const asksForOwnRecord = (request: FastifyRequest, route: RouteAccess, object: Record<string, unknown> | undefined) =>
    askedForSelf.has(request) && route.model?.name === users.name && ownRecord(users, object)(request);
  const refusal = (request: FastifyRequest, what: string): HttpError =>
    callerOf(request).id === null
      ? new HttpError(
          401,
          `log in to ${what}${otherScheme(ctx, request)}`,
          undefined,
          ctx.spec.apiKey ? { 'www-authenticate': 'ApiKey' } : undefined,
        )
      : new HttpError(403, `you may not ${what}`);
  /**
   * Admins write everything; others what they may see, never `groups` and never a read-only
   * field. A password, which nobody sees, only in a new object or in their own record: an ACL that
   * lets members change each other's records (as `allow authenticated update` in a collection
   * rule does, which item routes fall back to) must not let them set each other's passwords.
   */
  const writable = (request: FastifyRequest, model: Model, object?: Record<string, unknown>, creating = false) => {
    if (isAdmin(callerOf(request))) return () => true;
    const isUsers = model.name === users.name;
    const own = ownRecord(model, object)(request);
    const seen = visible(
      model,
      audience(request, () => own),
      request,
    );
    const secretWritable = object === undefined || own;
    return (name: string) =>
      !(isUsers && name === 'groups') &&
      !isFixed(model, name, creating) &&
      (model.field(name)?.secret === true ? secretWritable : seen === null || seen.has(name));
  };
  /**
   * `auth.hide_refused`: an item the rules refuse by the object itself, and that the caller may not
   * view, is answered as one that does not exist (404), so that its key tells no one it is there;
   * so is one whose dict or list field the URL names (`/articles/1/tags`: an attribute route is
   * decided on its item), and a parent's one-to-one object (`/photos/6/exif`, answered as "has
   * none"). A refusal that does not depend on the object (a group line, a route for admins) stays
   * a 401 or 403: it says nothing of which objects exist.
   */
  const hidden = async (
    request: FastifyRequest,
    permission: Permission,
    route: RouteAccess,
    object: Record<string, unknown> | undefined,
    parent: Parameters<Policy['authorize']>[4],
  ): Promise<boolean> => {
    const key = route.model?.primaryKey;
    const onItem = route.kind === 'item' || route.kind === 'attribute' || route.kind === 'singular';
    if (!onItem || key === undefined || object?.[key] === undefined) return false;
    // `/users/self` names the caller, whom they always see: a refusal of it hides nothing.
    if (decidesWithoutObject(aclOf(route)) || asksForOwnRecord(request, route, object)) return false;
    if (permission === 'view') return true;
    return !(await decideOn(request, 'view', route, object, parent)).allowed;
  };
  return {
    refusal,
    async authorize(request, permission, route, object, parent) {
      // `GET /users/self` is the caller, whoever the users' x-ACL lets view (the contract; the auth
      // routes' own `/users/self` answers so where the API has no user route to).
      if (permission === 'view' && asksForOwnRecord(request, route, object)) return;
      const decision = await decideOn(request, permission, route, object, parent);
      if (decision.allowed) return;
      logRefusal(request, permission, route, decision.line);
      if (ctx.config.hideRefused && (await hidden(request, permission, route, object, parent)))
        throw notFound(`${modelOf(route)} ${String(object![route.model!.primaryKey!])} not found`);
      throw refusal(request, `${VERBS[permission]} ${refusedTarget(permission, modelOf(route), object)}`);
    },
    may: async (request, permission, route, object, parent) =>
      (await decideOn(request, permission, route, object, parent)).allowed,
    viewable: (request, route) => selectable(aclOf(route), callerOf(request), 'view', request, modelOf(route)),
    async reachable(request, route) {
      const [acl, caller, model] = [aclOf(route), callerOf(request), modelOf(route)];
      // The objects no item line decides are the collection rules' to decide, for all of them at once.
      const listable = (await decide(acl, caller, 'view', request, model)).allowed;
      return reachableSelection(acl, caller, 'view', request, model, listable);
    },
    restricts: true,
    needsObject: (route) => !decidesWithoutObject(aclOf(route)),
    collectionNeedsParent: (route) => collectionCallsUserCode(aclOf(route)),
    fieldsNeedObject: (model) => model.name === users.name,
    visibleFields: (request, model, object) => visible(model, audience(request, ownRecord(model, object)), request),
    writable,
    checkWritable(request, model, fields, object, creating = false) {
      const mayWrite = writable(request, model, object, creating);
      const isUsers = model.name === users.name;
      const refused = fields.filter((name) => !mayWrite(name));
      if (refused.length) {
        const error = refusal(request, `write ${refused.join(', ')}`);
        throw new HttpError(
          error.statusCode,
          error.message,
          refused.map((field) => ({
            field,
            message: fieldRefusal(
              model,
              field,
              isUsers,
              creating,
              model.field(field)?.secret ? 'is not yours to write' : 'is not among the fields you may read, nor write',
            ),
          })),
          error.headers,
        );
      }
    },
    provePasswordChange: (request, model, body, object) => provePasswordChange(ctx, request, model, body, object),
    maxLimit: (request) =>
      callerOf(request).id === null ? Math.min(ctx.config.publicMaxLimit, ctx.config.maxLimit) : ctx.config.maxLimit,
    stillIdentified: (request, reply) => stillIdentified(ctx, request, reply),
    ownRecord(request) {
      const id = callerOf(request).id;
      return id === null ? null : { model: users.name, pk: id };
    },
    asNewcomer: (request) => asNewcomer(ctx, request),
    itemKey(request, model, key) {
      if (model.name !== users.name || key !== SELF) return key;
      const id = callerOf(request).id;
      if (id === null) throw new HttpError(401, 'log in to see yourself');
      askedForSelf.add(request);
      return id;
    },
  };
}

type Audience = 'anonymous' | 'member' | 'self' | 'admin';

/** A member's groups that some `_group_fields` names (sorted): with the audience, what decides the fields they see. */
type FieldGroups = readonly string[];

const NO_GROUPS: FieldGroups = [];

function audience(request: FastifyRequest, own: (request: FastifyRequest) => boolean): Audience {
  const caller = callerOf(request);
  return caller.id === null ? 'anonymous' : isAdmin(caller) ? 'admin' : own(request) ? 'self' : 'member';
}

/** The fields each audience sees, per model (null: all; secrets are dropped by the serializer). */
function visibility(models: ModelRegistry) {
  const cache = new Map<Model, Map<string, ReadonlySet<string> | null>>();
  const named = new Set([...models.values()].flatMap((m) => Object.keys(m.groupFields ?? {})));
  return (model: Model, who: Audience, request: FastifyRequest): ReadonlySet<string> | null => {
    const groups = who === 'member' && named.size ? fieldGroups(callerOf(request).groups, named) : NO_GROUPS;
    // As JSON: a group's name may hold any character (`x,y` is one group, not x and y).
    const key = groups.length ? `${who}:${JSON.stringify(groups)}` : who;
    let byAudience = cache.get(model);
    if (!byAudience) cache.set(model, (byAudience = new Map()));
    if (!byAudience.has(key)) byAudience.set(key, fieldsFor(model, who, models, groups));
    return byAudience.get(key)!;
  };
}

function fieldGroups(groups: ReadonlySet<string>, named: ReadonlySet<string>): FieldGroups {
  return [...groups].filter((g) => named.has(g)).sort();
}

/**
 * The fields of `model` that `who` sees (a member in `groups` too). A link kept in the other model's
 * rows (a speaker's `proposals`) tells what that model's link back does (each proposal's
 * `speaker`): who may not read that one (a blind review's reviewers) does not see this one either,
 * but in their own record (which of them are theirs tells them of no one else).
 */
export function fieldsFor(
  model: Model,
  who: Audience,
  models: ModelRegistry,
  groups: FieldGroups = NO_GROUPS,
): ReadonlySet<string> | null {
  const own = listedFields(model, who, groups);
  if (own === null || who === 'self') return own;
  const hiddenOnTheOtherSide = (name: string): boolean => {
    const relation = model.relation(name);
    const target = relation && !relation.local ? models.get(relation.target) : undefined;
    const theirs = target && listedFields(target, who, groups);
    return theirs !== undefined && theirs !== null && !theirs.has(relation!.inverse);
  };
  return new Set([...own].filter((name) => !hiddenOnTheOtherSide(name)));
}

/** The fields of `model` that `who` sees by its own privacy lists (null: all). */
function listedFields(model: Model, who: Audience, groups: FieldGroups): ReadonlySet<string> | null {
  if (who === 'admin') return null;
  const listed = who === 'anonymous' ? model.publicFields : who === 'member' ? model.authFields : null;
  const hidden = new Set(model.hiddenFields);
  const shown = listed ?? model.fields.map((f) => f.name);
  const byGroup = listed === null || who !== 'member' ? [] : groups.flatMap((g) => groupFieldsOf(model, g));
  return new Set([...shown, ...byGroup].filter((name) => !hidden.has(name)));
}

function groupFieldsOf(model: Model, group: string): readonly string[] {
  const lists = model.groupFields;
  return lists !== undefined && Object.hasOwn(lists, group) ? lists[group]! : [];
}

/**
 * Why a field may not be written (a member's body, a registration): groups, a read-only field, a
 * write-once one in a change, else `otherwise`.
 */
export function fieldRefusal(
  model: Model,
  field: string,
  isUsers: boolean,
  creating: boolean,
  otherwise: string,
): string {
  if (field === 'groups' && isUsers) return 'only admins change groups';
  return isFixed(model, field, creating) ? fixedRefusal(model, field) : otherwise;
}

/**
 * Why a request that sent credentials is anonymous all the same: an Authorization header of another
 * scheme (`Bearer …`, which a probe sent) is no credential here, and was passed over unsaid.
 */
function otherScheme(ctx: AuthContext, request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || /^apikey\s/i.test(header)) return '';
  const scheme = /^\S{1,20}/.exec(header)?.[0] ?? '';
  return ctx.spec.apiKey
    ? ` (the Authorization header's ${JSON.stringify(scheme)} is no scheme of this service: send ApiKey <username>:<token>, from POST /auth/token)`
    : ` (an Authorization header is no credential here: log in for the cookie)`;
}

/** What a refusal names: "this object", "this collection", or, of a create, "a Story" (not "create this collection"). */
function refusedTarget(permission: Permission, model: string, object: object | undefined): string {
  if (object) return 'this object';
  return permission !== 'create' || model === '' ? 'this collection' : withArticle(model);
}

/**
 * Which x-ACL line refused (or that none let the caller in), in the log: the answer says only
 * what was refused, since the lines name the API's groups and principals.
 */
function logRefusal(request: FastifyRequest, permission: Permission, route: RouteAccess, line: string | null): void {
  const acl = route.acl ?? '(none: admins only)';
  request.log.info(
    { acl, line, permission },
    line
      ? `refused by the line "${line}" of the x-ACL ${acl}`
      : `refused: no line of the x-ACL ${acl} lets the caller ${permission}`,
  );
}
