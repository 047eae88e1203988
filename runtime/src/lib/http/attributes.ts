/**
 * Attribute sub-resources (`/users/{username}/settings`): a dict or list field of the parent item,
 * read with GET and merged into with POST, Ramses' way. (PATCH and PUT on the item replace the
 * whole value.)
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, type FieldError } from '../errors.js';
import { generic, type FieldSpec } from '../model.js';
import { checkCollectionPreconditions } from './etag.js';
import { parseValue } from './query.js';
import { linkKeys } from './serialize.js';
import type { Rec, RouteContext } from './route-context.js';

/** GET: the dict or list value. */
export async function attribute(ctx: RouteContext, request: FastifyRequest): Promise<unknown> {
  const parent = await ctx.authorizedObject(request, 'view');
  const name = ctx.route.parent!.field;
  if (!mayRead(ctx, request, parent)) throw ctx.policy.refusal(request, `read ${name}`);
  return parent[name] ?? (ctx.fieldOfParent().type === 'list' ? [] : {});
}

/** Whether the caller's privacy level reads the attribute's field of `parent`. */
function mayRead(ctx: RouteContext, request: FastifyRequest, parent: Rec): boolean {
  const seen = ctx.policy.visibleFields(request, generic(ctx.route.parent!.model), parent);
  return !seen || seen.has(ctx.route.parent!.field);
}

/** POST on a dict/list attribute: dict keys are merged (`"-key"` removes one); list items are added (`"-item"` removes). */
export async function mergeAttribute(
  ctx: RouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const body = ctx.body(request);
  const parentModel = generic(ctx.route.parent!.model);
  const name = ctx.route.parent!.field;
  const field = ctx.fieldOfParent();
  const parent = await ctx.authorizedObject(request, 'update');
  ctx.policy.checkWritable(request, parentModel, [name], parent);
  // An attribute answers no ETag: as on a collection, If-Match holds only as `*`, If-None-Match never so.
  checkCollectionPreconditions(request);
  reply.code(201);
  let changed: Rec | undefined;
  const answer = await ctx.write(
    request,
    'update',
    { [name]: body },
    parent,
    async (db, data) => {
      const repository = db.repository(parentModel.name);
      const key = parent[parentModel.primaryKey];
      // Read the value again, under a row lock: two merges at the same time must both land. Where
      // the event carries the object as it was, that read (under the lock) is this one.
      const before = await ctx.previousOf(db, key);
      if (!before) await repository.lockForUpdate(key);
      const fresh =
        before ??
        (await repository.findUnique({ where: { [parentModel.primaryKey]: key }, include: linkKeys(parentModel) }));
      // Judged by the object (an owner's principal): on it as it is now, not as read before the lock.
      if (fresh && ctx.judgesObject()) await ctx.rejudge(request, { permission: 'update', fields: [name] }, fresh);
      const current = (fresh?.[name] ?? (field.type === 'list' ? [] : {})) as Rec | unknown[];
      const change = (data[name] ?? {}) as Rec;
      const merged =
        field.type === 'list' ? mergeList(field, current as unknown[], change) : mergeDict(current as Rec, change);
      checkMerged(ctx, request, name, merged);
      const updated = await repository.update({
        where: { [parentModel.primaryKey]: key },
        data: { ...ctx.withUpdateDefaults({ [name]: merged }) },
        include: linkKeys(parentModel),
      });
      await ctx.record(db, 'update', [updated], [before]);
      changed = updated;
      return merged;
    },
    (merged) => merged,
  );
  // As the attribute's GET would show it: to a caller who may change it but not read it, nothing.
  return ctx.shownChange(request, reply, changed, answer, changed !== undefined && mayRead(ctx, request, changed));
}

/** Each attribute route's field schema as a body of that one field: compiled once per route by Fastify's validator. */
const mergedBodies = new WeakMap<RouteContext['route'], object>();

/**
 * The merged value meets the field's JSON Schema, as a PATCH of the item that sent it whole would
 * (`maxItems`, `maxProperties`, an item's `maxLength`): else 400, answered as that PATCH's would be.
 */
function checkMerged(ctx: RouteContext, request: FastifyRequest, name: string, merged: unknown): void {
  const schema = ctx.route.value;
  if (!schema) return;
  let body = mergedBodies.get(ctx.route);
  if (!body) mergedBodies.set(ctx.route, (body = { type: 'object', properties: { [name]: schema } }));
  const validate = request.compileValidationSchema(body);
  if (validate({ [name]: merged })) return;
  throw Object.assign(new Error("the merged value does not meet the field's schema"), {
    statusCode: 400,
    validation: validate.errors ?? [],
    validationContext: 'body',
  });
}

/** Ramses' dict merge: each key of the body is set to its value, or (`"-key"`) taken out. */
function mergeDict(current: Rec, body: Rec): Rec {
  const out: Rec = { ...current };
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith('-')) delete out[key.slice(1)];
    // A `__proto__` key is data here (JSON.parse made it an own property): kept as one, never the prototype.
    else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Ramses' list merge: each key of the body is an item to add, or (`"-item"`) to remove. */
function mergeList(field: FieldSpec, current: readonly unknown[], body: Rec): unknown[] {
  const out = [...current];
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    const remove = key.startsWith('-');
    const item = parseValue(field, remove ? key.slice(1) : key);
    if (item === undefined || (field.choices && !field.choices.includes(item))) {
      errors.push({
        field: key,
        message: field.choices
          ? `is not one of ${field.choices.join(', ')}`
          : `is not a valid ${field.itemType ?? 'string'}`,
      });
      continue;
    }
    const index = out.findIndex((x) => x === item);
    if (remove && index !== -1) out.splice(index, 1);
    if (!remove && index === -1) out.push(item);
  }
  if (errors.length) throw badRequest('invalid list items', errors);
  return out;
}
