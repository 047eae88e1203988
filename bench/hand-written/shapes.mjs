// What both hand-written contenders answer, as the generated service does: the object with _type,
// _pk and _self, the error body of a 404, the status body of a DELETE, and the body schemas of a
// POST and a PATCH. And the routes of the servers' `contract` mode (`contractRoutes`), with what the
// contract asks of every answer and write besides: an item's ETag and If-Match, the security
// headers, and a durable event.
import { hash, randomUUID } from 'node:crypto';

export const self = (request, id) => `${request.protocol}://${request.host}/v1/items/${id}`;

export const present = (request, row) => ({ ...row, _type: 'Item', _pk: String(row.id), _self: self(request, row.id) });

const failed = (request, reply, status, title, explanation, message) =>
  reply.code(status).send({
    status_code: status,
    title,
    explanation,
    message,
    timestamp: new Date().toISOString().slice(0, 19) + 'Z',
    request_url: `${request.protocol}://${request.host}${request.url}`,
  });

export const notFound = (request, reply, message) =>
  failed(request, reply, 404, 'Not Found', 'The resource could not be found.', message);

/** The 412 of a PATCH or DELETE whose If-Match names another version of the item. */
const changed = (request, reply) =>
  failed(
    request,
    reply,
    412,
    'Precondition Failed',
    'A precondition of the request (If-Match) is not met.',
    'the object has changed since you read it (If-Match names another ETag)',
  );

/** The answer of a DELETE: the service's status body. */
export const deleted = (request) => ({
  status_code: 200,
  title: 'OK',
  explanation: '',
  message: 'Deleted',
  timestamp: new Date().toISOString().slice(0, 19) + 'Z',
  request_url: `${request.protocol}://${request.host}${request.url}`,
});

/** A PATCH body: any of the fields, none required. */
export const patch = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string' }, description: { type: ['string', 'null'] } },
};

export const body = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string' }, description: { type: ['string', 'null'] } },
};

// --- what the contract adds, as a good developer would write it for this one model --------------

/** An item's ETag: a digest of its row (what every caller sees of an Item; `_self` is not in it). */
const etagOf = (row) => `"${hash('sha256', JSON.stringify(row), 'base64url').slice(0, 27)}"`;

/** Whether `row` is what the request's If-Match names (or there is none, or it is `*`). */
export function ifMatchHolds(request, row) {
  const header = request.headers['if-match'];
  if (header === undefined) return true;
  const tags = header.split(',').map((tag) => tag.trim());
  return tags.includes('*') || tags.includes(etagOf(row));
}

/** A new event's id and time (what its row holds besides its type, its item's key and the item). */
export const eventIdentity = () => ({ id: randomUUID(), time: new Date().toISOString() });

/** nosniff and no-store on every answer, in one callback hook (no promise per request). */
function withSecurityHeaders(app) {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

/** An item's key from its URL, or `undefined` when it cannot be one. */
const itemKey = (text) => (/^\d{1,9}$/.test(text) ? Number(text) : undefined);

/**
 * The routes with the contract's duties, over an engine's `store` (sync or async alike):
 * `read(id)`, `create(name, description)` and `change(request, id, name, sent, description)` and
 * `destroy(request, id)`, each giving the row (a write with its event), `undefined` when there is no
 * such item, or `false` when If-Match names another version (nothing written). `list`: the page's route.
 */
export function contractRoutes(app, store, list) {
  const item = (request, reply, row) => {
    reply.header('etag', etagOf(row));
    return present(request, row);
  };
  const missing = (request, reply) => notFound(request, reply, `Item ${request.params.id} not found`);
  withSecurityHeaders(app);

  app.get('/v1/items/:id', async (request, reply) => {
    const id = itemKey(request.params.id);
    const row = id === undefined ? undefined : await store.read(id);
    return row ? item(request, reply, row) : missing(request, reply);
  });
  app.get('/v1/items', list);
  app.post('/v1/items', { schema: { body } }, async (request, reply) => {
    const row = await store.create(request.body.name, request.body.description ?? null);
    reply.code(201).header('location', self(request, row.id));
    return item(request, reply, row);
  });
  app.patch('/v1/items/:id', { schema: { body: patch } }, async (request, reply) => {
    const id = itemKey(request.params.id);
    const { name, description } = request.body;
    const sent = 'description' in request.body;
    const row = id === undefined ? undefined : await store.change(request, id, name ?? null, sent, description ?? null);
    if (row === false) return changed(request, reply);
    if (!row) return missing(request, reply);
    reply.header('location', self(request, row.id));
    return item(request, reply, row);
  });
  app.delete('/v1/items/:id', async (request, reply) => {
    const id = itemKey(request.params.id);
    const row = id === undefined ? undefined : await store.destroy(request, id);
    if (row === false) return changed(request, reply);
    return row ? deleted(request) : missing(request, reply);
  });
}
