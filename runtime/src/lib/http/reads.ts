/**
 * The reads of collections and items: GET of a page (with the query language, `_count`, `_fields`)
 * and of one object, with its ETag. A read takes a transaction only when the model has handlers for it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseItemFields, parseListQuery, withoutPaging, type ListQuery } from './query.js';
import { afterCursor, encodeCursor } from './cursor.js';
import { checkReadIfMatch, etagOf, notModified } from './etag.js';
import { includeFor, requestOrigin, requestTarget } from './serialize.js';
import { attribute } from './attributes.js';
import type { Where } from '../repository.js';
import { combine, type Query, type Rec, type RouteContext } from './route-context.js';

export async function index(ctx: RouteContext, request: FastifyRequest): Promise<unknown> {
  if (ctx.route.kind === 'attribute') return attribute(ctx, request);
  const started = performance.now();
  await ctx.authorizeCollection(request, 'view');
  const query = parseListQuery(ctx.model, request.query as Query, {
    defaultLimit: ctx.services.defaultLimit,
    maxLimit: ctx.policy.maxLimit(request),
    maxOffset: ctx.services.maxOffset,
    visible: ctx.policy.visibleFields(request, ctx.model),
    ...ownRecordFields(ctx, request),
  });
  // Objects the item rules keep from the caller are not in the page, the total or the count.
  const viewable = await ctx.policy.viewable(request, ctx.route);
  const filters = await ctx.filtersAmongViewable(request, query.where);
  return ctx.withEvents(request, 'index', undefined, async (db) => {
    const scope = await ctx.scope(db, request);
    const where = combine(combine(filters, scope), selection(ctx, viewable));
    const repository = ctx.repository(db);
    if (query.count) return { count: await repository.count({ where }) };
    const count = () => repository.count({ where });
    // One row more than the page: whether there is a next page, without counting.
    const wanted = query.take === 0 ? 0 : query.take + 1;
    const args = (condition: Where<Rec>, take: number) => ({
      where: condition,
      orderBy: query.orderBy,
      skip: query.after ? 0 : query.skip,
      take,
      include: includeFor(ctx.model, ctx.services.db.models),
    });
    const read = (condition: Where<Rec>, take: number) => repository.findMany(args(condition, take));
    const after = query.after;
    const find = after
      ? () => afterCursorRead(afterCursor(ctx.model, query.orderBy, after, repository.nullsLast), where, wanted, read)
      : () => read(where, wanted);
    // The page with its total in one statement where the engine can; else both, at once outside a
    // transaction (inside one, for index handlers, one query at a time: MongoDB takes no more).
    const together = after ? undefined : await repository.findManyWithTotal?.(args(where, wanted));
    const [total, found] = together
      ? [together.total ?? (await count()), together.records]
      : db === ctx.services.db
        ? await Promise.all([count(), find()])
        : [await count(), await find()];
    const records = found.slice(0, query.take);
    const next = found.length > query.take ? nextPage(ctx, request, query, records) : undefined;
    await ctx.hideRefusedLinks(request, records, db);
    const serializer = ctx.serializer(request, query.fields);
    const data = records.map((r) => serializer.object(ctx.model, r));
    return {
      total,
      count: data.length,
      start: query.skip,
      took: Math.round(performance.now() - started),
      fields: query.fieldsText,
      ...(next === undefined ? {} : { next }),
      data,
    };
  });
}

/**
 * The URL of the page after this one: the same query with `_after` = the cursor of this page's last
 * object. Pages in best-match order (`q` without `_sort`) have no cursor: theirs names `_start`, up
 * to `max_offset`.
 */
function nextPage(
  ctx: RouteContext,
  request: FastifyRequest,
  query: ListQuery,
  records: readonly Rec[],
): string | undefined {
  const start = query.skip + records.length;
  const ranked = query.where.SEARCH !== undefined && query.orderBy.length === 0;
  if (ranked && start > (ctx.services.maxOffset ?? Infinity)) return undefined;
  const next = ranked
    ? `_start=${start}`
    : `_after=${encodeCursor(ctx.model, query.orderBy, records.at(-1)!, start, ctx.services.db.models)}`;
  return `${requestOrigin(request)}${withoutPaging(requestTarget(request))}${next}`;
}

/**
 * The `wanted` objects after a cursor: its conditions in order (cursor.ts afterCursor), each read
 * only while the page is short. Most pages are one query; a page that reaches the nulls after the
 * last value of its first sort field is two.
 */
async function afterCursorRead(
  segments: readonly Where<Rec>[],
  where: Where<Rec>,
  wanted: number,
  read: (condition: Where<Rec>, take: number) => Promise<Rec[]>,
): Promise<Rec[]> {
  const found: Rec[] = [];
  for (const segment of segments) {
    found.push(...(await read(combine(where, segment), wanted - found.length)));
    if (found.length >= wanted) break;
  }
  return found;
}

/**
 * What `_fields` may name in a list of users: the fields of the caller's own record (the
 * serializer then shows them in that row alone). Nothing more for other models, or anonymous callers.
 */
function ownRecordFields(ctx: RouteContext, request: FastifyRequest): { projectable?: ReadonlySet<string> | null } {
  if (!ctx.policy.fieldsNeedObject(ctx.model)) return {};
  const own = ctx.policy.ownRecord(request);
  if (!own || own.model !== ctx.model.name) return {};
  return { projectable: ctx.policy.visibleFields(request, ctx.model, { [ctx.model.primaryKey]: own.pk }) };
}

/** A selection as a condition: every object (none), no object, or those it selects. */
export function selection(ctx: RouteContext, viewable: boolean | Where<Rec>): Where<Rec> {
  if (viewable === true) return {};
  return viewable === false ? { [ctx.model.primaryKey]: { in: [] } } : viewable;
}

export async function show(ctx: RouteContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const object = await ctx.authorizedObject(request, 'view');
  // The fields of this object the caller may read: on their own record, more than on others'.
  const fields = parseItemFields(
    ctx.model,
    request.query as Query,
    ctx.policy.visibleFields(request, ctx.model, object),
  );
  let tag = '';
  const shown = await ctx.withEvents(request, 'show', object, async (db) => {
    await ctx.hideRefusedLinks(request, [object], db);
    // Of the whole object, whatever `_fields` asks for: the tag a later If-Match compares with.
    const whole = ctx.serializer(request).object(ctx.model, object);
    tag = etagOf(whole);
    reply.header('etag', tag);
    return fields ? ctx.serializer(request, fields).object(ctx.model, object) : whole;
  });
  // RFC 9110 13.2.2: If-Match first, then If-None-Match.
  checkReadIfMatch(request, tag);
  return notModified(request, tag) ? reply.code(304).send() : shown;
}
