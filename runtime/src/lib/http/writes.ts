/**
 * The writes of one object: POST (create), PATCH (update), PUT (replace) and DELETE, each in one
 * transaction with its event handlers, If-Match checked under a row lock. What a body may not
 * write is named before anything else happens. A change of an item whose object nothing needs
 * first goes to the database by its key (`target`, RouteContext.writesByKey).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, conflict, fieldsRefused, HttpError, notFound, statusBody, type FieldError } from '../errors.js';
import { text, TOO_LONG_TO_INDEX, TOO_LONG_TO_SEARCH, tooLongToIndex, tooLongToSearch, withArticle } from '../text.js';
import { generic, keyValue, missingKey, unnamableKey, withDefaults, wholeNumber, type Model } from '../model.js';
import { cascades, restrictedBy } from './cascades.js';
import { withoutEchoes } from './echoes.js';
import { includeFor, requestUrl } from './serialize.js';
import { mergeAttribute } from './attributes.js';
import { checkCollectionPreconditions, hasPrecondition } from './etag.js';
import { movesLinks, type Rec, type RouteContext } from './route-context.js';
import { keyOf } from './relinks.js';
import { runsBefore } from '../events.js';
import { ConstraintViolation, UnknownReference } from '../repository.js';
import { EXACT_DIGITS, parseDate, parseDatetime, parseTime, roundDecimal } from '../values.js';

export async function create(ctx: RouteContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  if (ctx.route.kind === 'attribute') return mergeAttribute(ctx, request, reply);
  const body = ctx.body(request);
  checkBody(ctx, request, body, 'create');
  await ctx.authorizeCollection(request, 'create', body);
  if (ctx.route.kind === 'collection') checkCollectionPreconditions(request);
  // The parent the URL names, checked before any handler runs (one the caller may not view is a
  // 404 that no handler's own error may replace), and its link given to the handlers as a field
  // the request sets, as a link written in the body of a create at the top level is.
  const link = ctx.route.parent ? await ctx.createdLink(ctx.services.db, request) : {};
  // With the defaults of its links only, and only when it runs: a default of a user function's
  // (`{{make_code}}`, a sequence) is taken once, by the write (a probe's codes went up by two).
  await checkLinksBeforeHandlers(
    ctx,
    request,
    'create',
    undefined,
    () => linkDefaults(ctx.model, { ...body, ...link }),
    body,
  );
  reply.code(201);
  return parentStillThere(ctx, request, () =>
    ctx.write(
      request,
      'create',
      { ...body, ...link },
      undefined,
      async (db, data, writes) => {
        if (ctx.route.kind === 'singular' && (await ctx.repository(db).findFirst({ where: link }))) {
          throw conflict(`${ctx.parentNamed(request)} already has ${withArticle(ctx.route.parent!.field)}`);
        }
        refuseOtherParent(ctx, body, data, link);
        const values = withDefaults(ctx.model, { ...data, ...link });
        const unkeyed = missingKey(ctx.model, values);
        if (unkeyed.length) throw badRequest(fieldsRefused(unkeyed), unkeyed);
        await ctx.checkRelinks(db, request, { object: undefined, data: values, fields: Object.keys(body) });
        const created = await writes.create({
          data: values,
          include: includeFor(ctx.model, ctx.services.db.models),
        });
        await ctx.hideRefusedLinks(request, [created], db);
        return created;
      },
      (created) => ctx.present(request, reply, created),
      // A singular route's object is looked for before the insert, and the objects a relationship
      // would move are read before it too (for their events and handlers, moved-links.ts, whether or
      // not the x-ACLs restrict them); a parent was read before the write.
      {
        oneWrite: ctx.route.kind !== 'singular' && !movesLinks(ctx, body, 'create') && !movesOthers(ctx.model, body),
      },
    ),
  );
}

/**
 * A nested create whose insert broke a foreign key because the parent the URL names was deleted
 * after it was read (the delete committed in between): the 404 a moment later would have given,
 * not the link's 400 (PostgreSQL names it) or a delete's 409 (SQLite's constraint names no column).
 * A parent still there leaves the error as it was.
 */
async function parentStillThere<T>(ctx: RouteContext, request: FastifyRequest, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const brokenLink =
      error instanceof UnknownReference || (error instanceof ConstraintViolation && error.kind === 'foreign_key');
    if (ctx.route.parent && brokenLink) await ctx.parent(ctx.services.db, request);
    throw error;
  }
}

/**
 * A create below a parent whose handlers set its link to that parent to another object (a like's
 * `liker`, set to the caller, when the URL names another user's likes): the URL's parent would
 * silently overrule the handler (a member then liked as someone else). Refused, as a link the caller
 * may not make: the object belongs below the parent the service chose.
 */
function refuseOtherParent(ctx: RouteContext, body: Rec, data: Rec, link: Rec): void {
  if (!ctx.route.parent) return;
  const parentModel = generic(ctx.route.parent.model);
  for (const [field, key] of Object.entries(link)) {
    // A handler may set the link to a key, or to an object (relinks.ts `keyOf`).
    const chosen = keyOf(data[field], parentModel);
    // Unchanged (the URL's, or the body's, which a nested route does not take), or cleared.
    if (chosen === null || text(chosen) === text(key) || field in body) continue;
    const parent = parentModel.name;
    throw new HttpError(
      403,
      `you may not create ${withArticle(ctx.model.name)} below ${parent} ${text(key)}: the service gives its ${field} another ${parent} (${text(chosen)}); create it below that one`,
      [{ field, message: `is ${text(chosen)}, as the service sets it, not ${text(key)}` }],
    );
  }
}

/** Whether `body` sets a relationship kept in the other model's rows: writing it changes those objects. */
function movesOthers(model: Model, body: Rec): boolean {
  return model.relations.some((r) => !r.local && body[r.name] !== undefined);
}

export async function update(
  ctx: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  action: 'update' | 'replace',
): Promise<unknown> {
  const received = ctx.body(request);
  const { object, key } = await target(ctx, request, action, received, 'update');
  // What the body says back of the object as GET answered it (`{ ...item, name }`) is no write.
  const sent = await withoutEchoes(ctx, request, received, object);
  checkBody(ctx, request, sent, action);
  // Without the proof of a password change, and without a password sent as it is stored.
  const body = await ctx.policy.provePasswordChange(request, ctx.model, sent, object);
  ctx.policy.checkWritable(request, ctx.model, Object.keys(body), object);
  checkKeyUnchanged(ctx, body, key);
  // A PUT writes every field the caller may: what it leaves out returns to its default, or empties.
  // The before handlers see those fields too (a guard of `status` sees it go back to `draft`).
  const mayWrite = ctx.policy.writable(request, ctx.model, object);
  const written = action === 'replace' ? replacement(ctx, body, mayWrite) : body;
  const resets = new Set(Object.keys(written).filter((name) => !(name in body)));
  await checkLinksBeforeHandlers(ctx, request, action, object, () => written, written, key);
  let changed: Rec | undefined;
  const answer = await ctx.write(
    request,
    action,
    written,
    object,
    async (db, data, writes) => {
      const values = action === 'replace' ? replacement(ctx, data, mayWrite) : ctx.withUpdateDefaults(data);
      // PUT empties the links of its own row it leaves out: those move links too.
      const fields = Object.keys(written);
      const linked = await ctx.checkRelinks(db, request, { object, key, data: values, fields });
      const updated = await writes.update(
        {
          where: { [ctx.model.primaryKey]: key },
          data: linked,
          include: includeFor(ctx.model, ctx.services.db.models),
        },
        action,
      );
      await ctx.hideRefusedLinks(request, [updated], db);
      return updated;
    },
    (updated) => ctx.present(request, reply, (changed = updated)),
    {
      // If-Match and an ACL that decides by the object read it again under a row lock, and the
      // objects a relationship would move are read before the write: all take the transaction.
      oneWrite: !hasPrecondition(request) && !movesLinks(ctx, body, action) && !rejudged(ctx, object),
      resets,
      first: (db) => ctx.checkCurrent(db, request, key, { permission: 'update', fields: Object.keys(body) }),
    },
  );
  return ctx.shownChange(request, reply, changed, answer);
}

export async function deleteObject(ctx: RouteContext, request: FastifyRequest): Promise<unknown> {
  const { object, key } = await target(ctx, request, 'delete', {}, 'delete');
  try {
    return await ctx.write(
      request,
      'delete',
      {},
      object,
      async (_db, _data, writes) => {
        await writes.delete({ where: { [ctx.model.primaryKey]: key } }, object);
      },
      () => statusBody(200, 'Deleted', requestUrl(request)),
      // The objects a delete takes with it are read before it, for their events (cascades.ts).
      {
        oneWrite: !hasPrecondition(request) && !cascades(ctx.model) && !rejudged(ctx, object),
        first: (db) => ctx.checkCurrent(db, request, key, { permission: 'delete', fields: [] }),
      },
    );
  } catch (error) {
    throw await restrictedBy(ctx.services.db, ctx.model, [key], error);
  }
}

/** Whether the write of `object` (read before it: undefined when written by its key) is judged again in its transaction (`checkCurrent`). */
function rejudged(ctx: RouteContext, object: Rec | undefined): boolean {
  return object !== undefined && ctx.judgesObject();
}

/**
 * The item a write changes, once the caller may: read first, or, when nothing wants the object
 * (`RouteContext.writesByKey`), only its key (a missing object is then the write's 404).
 */
async function target(
  ctx: RouteContext,
  request: FastifyRequest,
  action: 'update' | 'replace' | 'delete',
  body: Rec,
  permission: 'update' | 'delete',
): Promise<{ object: Rec | undefined; key: unknown }> {
  if (ctx.writesByKey(request, action, body)) {
    await ctx.authorizeByKey(request, permission);
    // The key as stored, as a read would have found it; one that cannot be a key (`abc`, `07`)
    // names nothing, as it does for a read.
    const key = ctx.itemKey(request);
    const value = keyValue(ctx.model, key);
    if (value === undefined) throw notFound(`${ctx.model.name} ${String(key)} not found`);
    return { object: undefined, key: value };
  }
  const object = await ctx.authorizedObject(request, permission);
  return { object, key: object[ctx.model.primaryKey] };
}

/**
 * The links the body writes, checked before the before handlers run as they are after (inside
 * the write): a handler that reads a linked object (`event.fields.org`) must not answer for one
 * the caller may not view, so that its own error (a 409 "already a member") cannot tell a hidden
 * object from a missing one. Without before handlers or processors the check inside the write is
 * the first.
 */
async function checkLinksBeforeHandlers(
  ctx: RouteContext,
  request: FastifyRequest,
  action: 'create' | 'update' | 'replace',
  object: Rec | undefined,
  data: () => Rec,
  sent: Rec,
  key?: unknown,
): Promise<void> {
  if (!movesLinks(ctx, sent, action) || !runsBefore(ctx.eventRun(request, action, object))) return;
  await ctx.checkRelinks(ctx.services.db, request, { object, key, data: data(), fields: Object.keys(sent) });
}

/** `data` with the defaults of the links it leaves out (their foreign keys'): what a link check reads. */
function linkDefaults(model: Model, data: Rec): Rec {
  return withDefaults(model, data, (field) => field.type === 'foreign_key');
}

/** Names the fields that cannot be written, before anything else happens. */
export function checkBody(
  ctx: RouteContext,
  request: FastifyRequest,
  body: Rec,
  action: 'create' | 'update' | 'replace' | 'update_many',
): void {
  readValues(ctx.model, body);
  const errors: FieldError[] = [
    ...inexactDecimals(ctx.model, body),
    ...oversizedIndexedText(ctx.model, body),
    ...foreignKeysNamed(ctx.model, body),
  ];
  for (const name of Object.keys(body)) {
    const field = ctx.model.field(name);
    if (field?.generated && field.type !== 'foreign_key' && !(action !== 'create' && field.primaryKey))
      errors.push({ field: name, message: 'is generated by the service and cannot be set' });
  }
  if (action === 'create') errors.push(...unnamableKey(ctx.model, body));
  const inverse = ctx.inverse;
  if (inverse && inverse in body)
    errors.push({ field: inverse, message: `is set by the URL (${ctx.route.parent!.model.name})` });
  if (errors.length) throw badRequest(fieldsRefused(errors), errors);
  // Updates of one object are checked once it is known (a user may write more of their own record),
  // and so are those of several where that is so (bulk.ts, per object).
  if (action === 'create' || (action === 'update_many' && !ctx.policy.fieldsNeedObject(ctx.model)))
    ctx.policy.checkWritable(request, ctx.model, Object.keys(body), undefined, action === 'create');
}

/**
 * The foreign keys a body names. A link is written by its relationship, whose checks (the linked
 * object exists and the caller may view it, moving it asks its rights) read the relationship's
 * name: its key column written directly would pass by them all.
 */
export function foreignKeysNamed(model: Model, body: Rec): FieldError[] {
  return Object.keys(body).flatMap((name) => {
    const field = model.field(name);
    if (field?.type !== 'foreign_key') return [];
    const relation = field.relation ? model.relation(field.relation) : undefined;
    return [
      { field: name, message: `is a foreign key: set ${relation ? `"${relation.name}"` : 'the relationship'} instead` },
    ];
  });
}

/**
 * The decimals of a body with more digits than a JSON number carries exactly: fewer than 10^15,
 * and 15 significant digits once rounded to their scale. 90071992547409.99 reaches the service as
 * 90071992547409.98, the float nearest it, and 99999999999999999999.99 as 1e20: stored, they would
 * lose digits with no word said. (The column may hold more, as numeric(38, 2) does: no JSON number
 * can bring them.)
 */
export function inexactDecimals(model: Model, body: Rec): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of model.fields) {
    const value = body[field.name];
    if (field.scale === undefined || typeof value !== 'number') continue;
    const rounded = roundDecimal(value, field.scale);
    if (Math.abs(rounded) < 10 ** EXACT_DIGITS && significantDigits(rounded) <= EXACT_DIGITS) continue;
    const message = `has more than ${EXACT_DIGITS} digits, which a JSON number does not keep exactly`;
    errors.push({ field: field.name, message });
  }
  return errors;
}

/** Whether `name` is one of a `_unique_together` set of `model` (its index holds the value too). */
function uniqueTogether(model: Model, name: string): boolean {
  return model.uniqueTogether?.some((set) => set.includes(name)) ?? false;
}

/**
 * The text values of `body` too long for the index of their field (lib/text.ts `INDEXED_TEXT_BYTES`),
 * or for full-text search where their field is searched (`SEARCHED_TEXT_BYTES`).
 * Usernames and emails are measured again in their login form, which NFKC may make longer (auth/logins.ts).
 */
export function oversizedIndexedText(model: Model, body: Rec): FieldError[] {
  const errors: FieldError[] = [];
  for (const name in body) {
    const value = body[name];
    if (typeof value !== 'string' || !tooLongToIndex(value)) continue;
    if (model.searchFields.includes(name) && tooLongToSearch(value)) {
      errors.push({ field: name, message: TOO_LONG_TO_SEARCH });
      continue;
    }
    const field = model.field(name);
    if (!field || !(field.unique || field.index || field.primaryKey || uniqueTogether(model, name))) continue;
    errors.push({ field: name, message: TOO_LONG_TO_INDEX });
  }
  return errors;
}

function significantDigits(value: number): number {
  // toExponential() writes the shortest digits that read back as this float: 1.5e+2 for 150.
  return Math.abs(value).toExponential().split('e')[0]!.replace('.', '').length;
}

export function checkKeyUnchanged(ctx: RouteContext, body: Rec, key: unknown): void {
  const pk = ctx.model.primaryKey;
  if (pk in body && String(body[pk]) !== String(key)) {
    throw badRequest(`the primary key ${pk} cannot change`, [{ field: pk, message: 'cannot be changed' }]);
  }
  delete body[pk];
}

/**
 * PUT: absent optional fields return to their default (or null); absent required fields are a 400.
 * Fields the caller may not write (`mayWrite`: another member's `groups`, fields they may not see)
 * keep their stored values: a PUT without them is not a way to reset them. So do fields whose
 * default is computed at creation (`created_at`), and write-once fields: a replacement is not a new object.
 */
export function replacement(ctx: RouteContext, data: Rec, mayWrite: (name: string) => boolean): Rec {
  const out: Rec = {};
  const missing: FieldError[] = [];
  for (const field of ctx.model.fields) {
    if (!field.writable || field.primaryKey) continue;
    if (field.name === ctx.inverse) continue;
    if (field.name in data) out[field.name] = data[field.name];
    // A link kept in the other objects' rows (a trip's days) is theirs: left out, it is left as it
    // is. Emptied, it unlinked them all, orphaning a probe's days, and refused the trip's owner a
    // PUT of her trip for a membership she may not change.
    else if (field.type === 'relationship' && !ctx.model.relation(field.name)?.local) continue;
    // A password is never emptied: one a PUT leaves out (sent as it is stored) keeps its hash.
    else if (field.secret) continue;
    else if (field.onUpdate) out[field.name] = field.onUpdate();
    // A write-once field is no more the PUT's to reset than to change (an admin's PUT too: it says the value it sets).
    else if (!mayWrite(field.name) || field.defaultIsComputed || field.writeOnce) continue;
    else if (field.requiredOnCreate) missing.push({ field: field.name, message: 'is required' });
    else if (field.default) out[field.name] = field.default();
    else
      out[field.name] =
        field.type === 'relationship' && ctx.model.relation(field.name)?.cardinality === 'many' ? [] : null;
  }
  if (missing.length)
    throw badRequest(
      `missing required field${missing.length > 1 ? 's' : ''}: ${missing.map((m) => m.field).join(', ')}`,
      missing,
    );
  return out;
}

/**
 * The body's values as handlers and processors are to see them. Links name related objects by
 * key, also in the string form the API returns as `_pk` ("3" for the integer key 3): they then see
 * the key itself (a string that is no key is left as it is, for the link to report as unknown).
 * A decimal is rounded to its scale, as it is stored: a bounty of 200.004 once passed a handler's
 * range check as such, and was stored as 200.00. Dates and times are in their stored form.
 */
function readValues(model: Model, body: Rec): void {
  for (const field of model.fields) {
    const value = body[field.name];
    if (value === undefined || value === null) continue;
    if (field.type === 'relationship' && field.storage === 'integer') {
      const key = (v: unknown) => (typeof v === 'string' ? (wholeNumber(field, v) ?? v) : v);
      body[field.name] = Array.isArray(value) ? value.map(key) : key(value);
    } else if (field.scale !== undefined && field.storage === 'real' && typeof value === 'number') {
      body[field.name] = roundDecimal(value, field.scale);
    } else if (typeof value === 'string' && TEMPORAL[field.type]) {
      body[field.name] = TEMPORAL[field.type]!(value) ?? value;
    }
  }
}

/**
 * A date and time, a date, a time as stored (values.ts): `2026-06-30T23:59:60Z` is the next
 * minute's first, `-05:00` is UTC. A probe's handler read a booking's leap second as no date
 * (`Date.parse` gives NaN) and one with an offset in another month than the one stored.
 */
const TEMPORAL: Partial<Record<string, (text: string) => string | undefined>> = {
  datetime: parseDatetime,
  date: parseDate,
  time: parseTime,
};
