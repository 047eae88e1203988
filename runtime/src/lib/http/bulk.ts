/**
 * PATCH, PUT and DELETE on a collection: the objects a GET with the same filters would list (no
 * paging), changed in one transaction, each checked against its item ACL, and never more than
 * `bulk_max` of them.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest, statusBody } from '../errors.js';
import type { ServiceDatabase } from '../database.js';
import type { Where } from '../repository.js';
import { cascadeJudge, withCascades } from './cascades.js';
import { checkCollectionPreconditions } from './etag.js';
import { parseListQuery } from './query.js';
import { selection } from './reads.js';
import { linkKeys, requestUrl } from './serialize.js';
import { checkBody } from './writes.js';
import { withMovedLinks } from './moved-links.js';
import { combine, type Query, type Rec, type RouteContext } from './route-context.js';

/** Keys per statement in bulk deletes (SQLite takes at most 32,766 parameters). */
const BULK_SLICE = 500;

/** PATCH/PUT on a collection: the objects matching the filters, in one transaction, each checked against its item ACL. */
export async function updateMany(ctx: RouteContext, request: FastifyRequest): Promise<unknown> {
  const sent = ctx.body(request);
  checkBody(ctx, request, sent, 'update_many');
  if (ctx.model.primaryKey in sent)
    throw badRequest(`the primary key ${ctx.model.primaryKey} cannot change`, [
      { field: ctx.model.primaryKey, message: 'cannot be changed' },
    ]);
  await ctx.authorizeCollection(request, 'update');
  checkCollectionPreconditions(request);
  // A member's own password is changed with its proof, on their record alone (auth/password-change.ts).
  const body = await ctx.policy.provePasswordChange(request, ctx.model, sent, undefined);
  const where = await bulkWhere(ctx, request);
  return ctx.write(
    request,
    'update_many',
    body,
    undefined,
    async (db, data) => {
      const objects = await bulkObjects(ctx, db, where, 'update');
      if (objects.length > 1) refuseSharedPartners(ctx, body, objects.length);
      for (const object of objects) {
        await ctx.policy.authorize(request, 'update', ctx.route, object);
        // What a PATCH of this object alone may write (a member writes more of their own record).
        if (ctx.policy.fieldsNeedObject(ctx.model))
          ctx.policy.checkWritable(request, ctx.model, Object.keys(body), object);
      }
      const values = ctx.withUpdateDefaults(data);
      for (const object of objects) {
        // Each object's links as the objects before it left them: a key list moves from one to the next.
        const linked = await ctx.checkRelinks(db, request, { object, data: values, fields: Object.keys(body) });
        const key = object[ctx.model.primaryKey];
        await withMovedLinks(
          db,
          ctx.model,
          key,
          linked,
          async () => {
            await ctx.claimLogin(db, linked, key, request);
            const before = await ctx.previousOf(db, key);
            const updated = await ctx.repository(db).update({
              where: { [ctx.model.primaryKey]: key },
              data: linked,
              include: linkKeys(ctx.model),
            });
            await ctx.record(db, 'update', [updated], [before]);
          },
          { request, events: ctx.services.events },
        );
      }
      return objects.length;
    },
    (count) => statusBody(200, `Updated ${count} ${ctx.model.name}(s) objects`, requestUrl(request), { count }),
    { where },
  );
}

export async function deleteMany(ctx: RouteContext, request: FastifyRequest): Promise<unknown> {
  await ctx.authorizeCollection(request, 'delete');
  checkCollectionPreconditions(request);
  const where = await bulkWhere(ctx, request);
  return ctx.write(
    request,
    'delete_many',
    {},
    undefined,
    async (db) => {
      const objects = await bulkObjects(ctx, db, where, 'delete');
      for (const object of objects) await ctx.policy.authorize(request, 'delete', ctx.route, object);
      const keys = objects.map((o) => o[ctx.model.primaryKey]);
      await withCascades(
        db,
        ctx.model,
        keys,
        async () => {
          for (let i = 0; i < keys.length; i += BULK_SLICE) {
            await ctx.repository(db).deleteMany({
              where: { [ctx.model.primaryKey]: { in: keys.slice(i, i + BULK_SLICE) } },
            });
          }
          await ctx.record(db, 'delete', objects);
        },
        cascadeJudge(ctx.policy, request),
      );
      return keys.length;
    },
    (count) => statusBody(200, `Deleted ${count} ${ctx.model.name}(s) objects`, requestUrl(request), { count }),
    { where },
  );
}

/**
 * A relationship whose related objects each link to one object of this model (a one-to-one, or
 * the to-many side of a one-to-many) cannot be given the same objects on `count` objects at once:
 * each write would take them from the one before, and all but the last would end without them,
 * though the answer said every one was updated. Unlinking (null, `[]`) is one value for all.
 */
function refuseSharedPartners(ctx: RouteContext, body: Rec, count: number): void {
  const models = ctx.services.db.models;
  const errors = ctx.model.relations
    .filter((relation) => {
      const value = body[relation.name];
      const given = Array.isArray(value) ? value.length > 0 : value !== null && value !== undefined;
      return given && models.get(relation.target)?.relation(relation.inverse)?.cardinality === 'one';
    })
    .map((relation) => ({
      field: relation.name,
      message: `each ${relation.target} links to one ${ctx.model.name}: it cannot be given to ${count} of them at once`,
    }));
  if (errors.length)
    throw badRequest(`this change would give the same related objects to ${count} ${ctx.model.name} objects`, errors);
}

/**
 * Filters that narrow nothing, which a list takes and a bulk change refuses: meant to narrow it (a
 * form's empty box), they changed every object (a probe's). An empty `q`, which a list reads as no
 * search (a search box sends it before anything is typed), `name__contains=` or
 * `name__startswith=`, which every text holds, and `name__ne=`, which every object but those with
 * an empty value passes (an attacker probe's admin rewrote every booking by `note__ne=`).
 */
function refuseNarrowingNothing(query: Query): void {
  if (query['q'] === '')
    throw badRequest('q is empty: a bulk change searches for words, or takes no q', [
      { field: 'q', message: 'is empty' },
    ]);
  for (const [name, value] of Object.entries(query)) {
    const empty = value === '' || (Array.isArray(value) && value.includes(''));
    if (!empty) continue;
    if (/__(?:contains|startswith)$/.test(name))
      throw badRequest(`${name} is empty, which every text holds: a bulk change by it would change every object`, [
        { field: name, message: 'is empty' },
      ]);
    if (name.endsWith('__ne'))
      throw badRequest(
        `${name} is empty, which all but empty values differ from: a bulk change by it would change almost every object`,
        [{ field: name, message: 'is empty' }],
      );
  }
}

/** Collection PATCH/PUT/DELETE select objects with the same filters as GET (no paging). */
export async function bulkWhere(ctx: RouteContext, request: FastifyRequest): Promise<Where<Rec>> {
  const query = request.query as Query;
  for (const name of ['_limit', '_page', '_start', '_after', '_sort', '_fields', '_count']) {
    if (query[name] !== undefined)
      throw badRequest(`${name} does not apply to bulk changes`, [{ field: name, message: 'does not apply here' }]);
  }
  // Without a search it restricts nothing, and a change of `?_search_fields=name` changed every object.
  if (query['_search_fields'] !== undefined && query['q'] === undefined)
    throw badRequest('_search_fields restricts a search: a bulk change with it takes q', [
      { field: '_search_fields', message: 'restricts a search: it takes q' },
    ]);
  refuseNarrowingNothing(query);
  const parsed = parseListQuery(ctx.model, query, {
    defaultLimit: 0,
    maxLimit: 0,
    visible: ctx.policy.visibleFields(request, ctx.model),
  });
  // Exactly the objects a GET with the same query lists: none the caller may not view, so that
  // which of those a filter matches cannot be read from a 403 against a 200 ("Updated 0").
  const viewable = selection(ctx, await ctx.policy.viewable(request, ctx.route));
  const filters = await ctx.filtersAmongViewable(request, parsed.where);
  return combine(combine(filters, await ctx.scope(ctx.services.db, request)), viewable);
}

/**
 * The objects a bulk change selects, or a 400 naming `bulk_max` when there are more: a filter
 * typed wrong must not rewrite a whole table, and nothing is changed.
 */
export async function bulkObjects(
  ctx: RouteContext,
  db: ServiceDatabase,
  where: Where<Rec>,
  purpose: 'update' | 'delete',
): Promise<Rec[]> {
  const max = ctx.services.bulkMax;
  const repository = ctx.repository(db);
  // With their links: the outbox's events name them.
  const include = linkKeys(ctx.model);
  const objects = await repository.findMany({ where, take: max + 1, include });
  if (objects.length > max) {
    throw badRequest(
      `this change selects more than ${max} ${ctx.model.name} objects, the most one request may change (bulk_max); narrow the filters or change them in parts`,
      [{ field: '(query)', message: `selects more than ${max} objects` }],
    );
  }
  const pk = ctx.model.primaryKey;
  const keys = objects.map((object) => object[pk]);
  const locked = purpose === 'delete' ? await repository.lockForDelete(keys) : await repository.lockForUpdates(keys);
  if (!locked || objects.length === 0) return objects;
  // PostgreSQL: another write may have changed them since the read (given one to another owner, moved
  // out of the filter) or deleted them. Locked now, they are read again as that write left them, and
  // those the filter no longer selects are left alone: judged and changed as they are, never as they were.
  return repository.findMany({ where: combine(where, { [pk]: { in: keys } }), include });
}
