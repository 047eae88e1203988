/**
 * What each route does: the actions of Ramses (index, create, show, update, replace, delete,
 * update_many, delete_many) on collections, items,
 * singular sub-resources (`/users/{username}/profile`) and attribute sub-resources
 * (`/users/{username}/settings`), bound to one route for its plugin to register. They live by
 * concern: reads.ts, writes.ts, bulk.ts, attributes.ts, over route-context.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { untilAnswered } from './deadline.js';
import { deleteMany, updateMany } from './bulk.js';
import { index, show } from './reads.js';
import { RouteContext, type RouteSpec } from './route-context.js';
import type { Services } from './services.js';
import { create, deleteObject, update } from './writes.js';
import { takeEmbeddedLinks } from './embedded-links.js';
import { HttpError } from '../errors.js';
import { isObject } from './relinks.js';

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The handlers of one route, bound to it. */
export function actionsFor(services: Services, route: RouteSpec) {
  const ctx = new RouteContext(services, route);
  const handler =
    (work: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): Handler =>
    (req, reply) =>
      untilAnswered(req, reply, work(req, reply));
  return {
    index: handler((req) => index(ctx, req)),
    create: handler((req, reply) => create(ctx, req, reply)),
    updateMany: handler((req) => updateMany(ctx, req)),
    deleteMany: handler(async (req) => deleteMany(ctx, withoutBody(req))),
    show: handler((req, reply) => show(ctx, req, reply)),
    update: handler((req, reply) => update(ctx, req, reply, 'update')),
    replace: handler((req, reply) => update(ctx, req, reply, 'replace')),
    delete: handler(async (req) => deleteObject(ctx, withoutBody(req))),
    options: (req: FastifyRequest) => options(ctx, req),
    /** Before the body is validated: a caller who may not write here gets 401/403, not a 400 about the body. */
    guard: (req: FastifyRequest) => guard(ctx, req),
  };
}

/** Whether the caller may write here at all, decided before the body is validated. */
async function guard(ctx: RouteContext, request: FastifyRequest): Promise<void> {
  const kind = ctx.route.kind;
  if (kind === 'collection' || (kind === 'singular' && request.method === 'POST')) {
    // A create's body may name the parent its rules are given (a flat route's): as parsed.
    const create = request.method === 'POST';
    await ctx.authorizeCollection(request, create ? 'create' : 'update', create ? guardedBody(request) : undefined);
    return;
  }
  // A link said back as GET embeds it (`_nested_relationships`) is read as its keys, for the schema that takes keys.
  if (kind !== 'attribute') takeEmbeddedLinks(ctx.model, ctx.services.db.models, request);
  if (ctx.writesByKey(request, request.method === 'PUT' ? 'replace' : 'update', guardedBody(request))) {
    await ctx.authorizeByKey(request, 'update');
  } else await ctx.authorizedObject(request, 'update');
}

/** The body as parsed, before validation: only its relationships (their presence, a key) are asked of it. */
function guardedBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/**
 * OPTIONS names methods. On an item (or an item's dict or list field) it is decided as GET is, by
 * the item rules on the object: an object the caller may not use is refused, one that does not
 * exist is a 404. On a collection the collection rules decide; on a singular sub-resource, which
 * may have no object yet, the item rules when they need none, else the collection rules. Then a
 * parent that does not exist, or that the caller may not view, is a 404, as for GET.
 */
async function options(ctx: RouteContext, request: FastifyRequest): Promise<void> {
  const kind = ctx.route.kind;
  if (kind === 'item' || kind === 'attribute') await ctx.authorizedObject(request, 'options');
  else {
    const itemRules = kind === 'singular' && !ctx.policy.needsObject(ctx.route);
    if (itemRules) await ctx.policy.authorize(request, 'options', ctx.route, {});
    else await ctx.authorizeCollection(request, 'options');
    if (ctx.route.parent) await ctx.parentKey(ctx.services.db, request);
  }
  const action = ctx.route.kind === 'collection' ? 'collection_options' : 'item_options';
  await ctx.withEvents(request, action, undefined, () => Promise.resolve(undefined));
}

/**
 * A DELETE deletes what its URL and query select, whatever a body says: a body that names anything
 * is a client that believes it does, and a 400 (a probe's `DELETE /recipes?title__startswith=Marker`
 * with `{"id": 96}` deleted every marker recipe). An empty body, or `{}`, is none.
 */
function withoutBody(request: FastifyRequest): FastifyRequest {
  const body = request.body;
  if (body === undefined || body === null || (isObject(body) && Object.keys(body).length === 0)) return request;
  throw new HttpError(400, 'a DELETE takes no body: it deletes what its URL and query select; send none', [
    { field: 'body', message: 'is not read by a DELETE' },
  ]);
}
