/**
 * The error responses: one component per status, all with the one `Error` body,
 * and which of them each operation can give.
 */
import type { Action, Field, HttpMethod, Model, Route } from '../../ir/types.js';
import { fixedRule } from '../../ir/write-rules.js';
import { type Json, type OpenApiContext } from './context.js';

const ERRORS: Readonly<Record<number, { readonly name: string; readonly description: string }>> = {
  400: { name: 'BadRequest', description: 'A malformed body or query: `errors` names each field or parameter.' },
  401: { name: 'Unauthorized', description: 'Not logged in (or wrong credentials), where that is required.' },
  403: {
    name: 'Forbidden',
    description:
      'Not allowed: by the ACL or field privacy (logged in), or a body that writes a read-only field or changes a write-once one, or refused by a handler.',
  },
  404: { name: 'NotFound', description: 'No such object (or parent object).' },
  409: { name: 'Conflict', description: 'A unique value is taken, or related objects prevent a delete.' },
  412: {
    name: 'PreconditionFailed',
    description:
      'A precondition does not hold, and nothing was changed: If-Match names another ETag (the object changed since it was read), If-None-Match names its ETag or is `*` (the object exists), or a write of a collection, which has no ETag, sends an If-Match other than `*`.',
  },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than body_limit.' },
  414: {
    name: 'UriTooLong',
    description:
      "The URL (its path and query) makes the request's headers larger than the service reads (16 KB), or a part of the path (a key) is longer than 100 characters.",
  },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json.' },
  429: {
    name: 'TooManyRequests',
    description:
      'Too many failed logins, more requests than rate_limit.writes or rate_limit.auth allow, or more open change feeds than feed.max_per_user or feed.max_per_address allow: try again after Retry-After seconds.',
  },
  500: {
    name: 'InternalServerError',
    description: 'A failure of the service: the body has only a request id, which the log has the details under.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The database does not answer, or the request took longer than http.handler_timeout (nothing it changed is saved): try again after Retry-After seconds.',
  },
};

export function componentResponses(ctx: OpenApiContext): [string, Json][] {
  const refuses = ctx.ir.models.some((m) => m.fields.some(onlyServiceWrites) || m.eventHandlers.length > 0);
  const statuses = Object.keys(ERRORS)
    .map(Number)
    .filter((s) => ctx.ir.auth || (s !== 401 && (s !== 403 || refuses)));
  return statuses.map((status) => {
    const { name, description } = ERRORS[status]!;
    const retry =
      status === 429 || status === 503
        ? { headers: { 'Retry-After': { description: 'Seconds.', schema: { type: 'integer' } } } }
        : {};
    return [name, { description, ...retry, content: { 'application/json': { schema: ctx.sharedRef('Error') } } }];
  });
}

/** The headers answers share: the ETag of an object (lib/http/etag.ts). */
export function componentHeaders(): [string, Json][] {
  return [
    [
      'ETag',
      {
        description:
          'A digest of the object as the caller sees it: send it back in If-Match to change or delete the object only if nobody changed it since.',
        schema: { type: 'string' },
      },
    ],
  ];
}

/** `{ "404": { $ref } … }` for the statuses given. */
export function errorResponses(statuses: Iterable<number>): Record<string, Json> {
  return Object.fromEntries(
    [...new Set(statuses)]
      .sort((a, b) => a - b)
      .map((s) => [String(s), { $ref: `#/components/responses/${ERRORS[s]!.name}` }]),
  );
}

const WRITES_BODY: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH']);
/** Requests that rate_limit.writes counts. */
const WRITES: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Item actions that If-Match makes conditional. */
const CONDITIONAL: ReadonlySet<Action> = new Set(['update', 'replace', 'delete']);
/** Actions that may hit a unique value, or a foreign key that restricts deletes. */
const CONFLICTS: ReadonlySet<Action> = new Set(['create', 'update', 'replace', 'update_many', 'delete', 'delete_many']);

/** Writes of a collection, which has no ETag: an If-Match other than `*`, or If-None-Match `*`, is a 412 (lib/http/etag.ts). */
const COLLECTION_WRITES: ReadonlySet<Action> = new Set(['create', 'update_many', 'delete_many']);

/**
 * Whether If-Match makes the operation conditional (412 when it does not hold): a change or delete
 * of one object, and a write of a collection or a merge into an attribute (where only `*` holds).
 */
export function isConditional(route: Pick<Route, 'kind'>, action: Action): boolean {
  return (
    (CONDITIONAL.has(action) && (route.kind === 'item' || route.kind === 'singular')) ||
    (COLLECTION_WRITES.has(action) && route.kind === 'collection') ||
    // A merge into an attribute (POST /users/{u}/settings): no ETag either.
    (action === 'create' && route.kind === 'attribute')
  );
}

/** The error statuses an operation of a route can answer with. */
export function routeErrors(ctx: OpenApiContext, route: Route, method: HttpMethod, action: Action): number[] {
  // Any URL can be too long to read (a query of 20 KB: a probe's, on every route).
  const statuses = [414, 500, 503];
  const options = action === 'collection_options' || action === 'item_options';
  if (WRITES_BODY.has(method) && !options) statuses.push(400, 413, 415);
  if (WRITES.has(method)) statuses.push(429);
  // Reads and bulk changes parse the query (filters, _fields).
  if (route.kind !== 'attribute' && ['index', 'show', 'update_many', 'delete_many'].includes(action))
    statuses.push(400);
  // A key in the path: not found, too long (414), or not percent-encoded right (400).
  if (route.kind !== 'collection' || route.parent) statuses.push(400, 404);
  if (CONFLICTS.has(action) && route.kind !== 'attribute') statuses.push(409);
  // A read of one object holds If-Match too (RFC 9110 13.1.1).
  if (isConditional(route, action) || action === 'show') statuses.push(412);
  if (ctx.ir.auth) statuses.push(401, 403);
  else if (refusesWithoutAuth(ctx, route, method, action)) statuses.push(403);
  return statuses;
}

/** A field no request body writes without auth (read-only), or changes (write-once): a 403 when one does. */
function onlyServiceWrites(field: Field): boolean {
  return fixedRule(field) !== null;
}

/**
 * Marks the operations of a document that describes auth that answer 403 with auth off too: the
 * service running with `auth = false` keeps their 403 (runtime lib/http/openapi.ts `withoutAuth`).
 */
export const FORBIDDEN_WITHOUT_AUTH_MARK = 'x-svcgen-forbidden-without-auth';

/**
 * Without auth, a 403 still answers a body that writes a read-only field (or changes a write-once
 * one), a delete that would empty other objects' write-once link (lib/http/cascades.ts), and
 * whatever a handler of the action throws (`HttpError(403, …)`, as a handler that keeps a rule does).
 */
export function refusesWithoutAuth(ctx: OpenApiContext, route: Route, method: HttpMethod, action: Action): boolean {
  const model = ctx.ir.models.find((m) => m.name === route.model);
  if (!model) return false;
  if (WRITES_BODY.has(method) && model.fields.some(onlyServiceWrites)) return true;
  if ((action === 'delete' || action === 'delete_many') && emptiesWriteOnceLinks(ctx, model)) return true;
  return model.eventHandlers.some((e) => e.action === action && e.handlers.length > 0);
}

/** Whether deleting an object of `model` unlinks objects whose link to it is write-once. */
function emptiesWriteOnceLinks(ctx: OpenApiContext, model: Model): boolean {
  return model.relationships.some(
    ({ foreignKey, onDelete }) =>
      foreignKey.model !== model.name &&
      onDelete === 'nullify' &&
      ctx.ir.models.find((m) => m.name === foreignKey.model)?.fields.find((f) => f.name === foreignKey.field)
        ?.writeOnce,
  );
}
