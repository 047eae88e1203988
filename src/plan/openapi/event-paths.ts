/**
 * The outbox in the document (the runtime's lib/outbox/, lib/webhooks/, lib/feed/): the schema
 * of each model's events and their union `Event` (components.schemas), the webhook every
 * subscription receives (OpenAPI 3.1 `webhooks`), the change feed `GET /_events`, and the
 * operators' routes under `/_webhooks` (admins only, with auth).
 */
import { eventTypes } from '../shared/event-types.js';
import { schemaRef, type Json, type OpenApiContext } from './context.js';
import type { OperationIds } from './operation-ids.js';
import { content } from './paths.js';
import { errorResponses } from './responses.js';
import { shownObjectSchema } from './schemas.js';
import { requirements } from './security.js';

/** Marks a model's event schema, for the runtime to find without knowing the models. */
export const EVENT_SCHEMA_EXTENSION = 'x-svcgen-events';

export const EVENTS_TAG = {
  name: 'events',
  description: 'The change feed, and the webhook deliveries of service.ini `webhooks.<name>.*` (admins only).',
};

/** The names of the event schemas, clear of the models' own (a model may be called `Event`). */
export class EventSchemaNames {
  readonly #taken: Set<string>;
  readonly event: string;
  readonly delivery: string;

  constructor(ctx: OpenApiContext) {
    this.#taken = new Set(ctx.models.flatMap((m) => Object.values(ctx.modelSchemaNames(m))));
    this.event = this.free('Event');
    this.delivery = this.free('WebhookDelivery');
  }

  free(name: string): string {
    let candidate = name;
    while (this.#taken.has(candidate)) candidate = `${candidate}_`;
    this.#taken.add(candidate);
    return candidate;
  }
}

/** `<Model>Event` per model whose objects the routes change, and `Event`, one of them. */
export function eventSchemas(ctx: OpenApiContext, names: EventSchemaNames): [string, Json][] {
  const types = [...eventTypes(ctx.ir)].filter(([model]) => ctx.models.some((m) => m.name === model));
  const objects = new Map(types.map(([model]) => [model, names.free(`${model}EventObject`)]));
  const perModel: [string, Json][] = types.map(([model, verbs]) => [
    names.free(`${model}Event`),
    {
      type: 'object',
      additionalProperties: false,
      description: `A change of ${model} objects, as webhooks POST it and GET /_events sends it.`,
      // The served document with auth off leaves out register events (lib/http/openapi.ts).
      [EVENT_SCHEMA_EXTENSION]: true,
      required: ['id', 'seq', 'type', 'time', 'data'],
      properties: {
        id: { type: 'string', description: 'Unique and stable: an idempotency key (the webhook-id header).' },
        seq: { type: 'integer', minimum: 1, description: 'Strictly increasing in commit order.' },
        type: { type: 'string', enum: verbs.map((verb) => `${model}.${verb}`) },
        time: { type: 'string', format: 'date-time' },
        data: {
          type: 'object',
          additionalProperties: false,
          required: ['pk', 'object'],
          properties: {
            pk: { type: 'string', description: 'The key of the object (its _pk).' },
            object: {
              ...schemaRef(objects.get(model)!),
              description:
                'The object after the change (for a delete, before it) as an admin reads it, hidden fields left out, relationships as keys.',
            },
            // `_event_previous`: an update's and a replace's events say what the object was.
            ...(ctx.ir.models.find((m) => m.name === model)?.eventPrevious
              ? {
                  previous: {
                    ...schemaRef(objects.get(model)!),
                    description: 'Of an update or a replace: the object before the change, in the form of `object`.',
                  },
                  changed: {
                    type: 'array',
                    items: { type: 'string' },
                    description:
                      'Of an update or a replace: the fields whose values differ between previous and object.',
                  },
                }
              : {}),
          },
        },
      },
    },
  ]);
  return [
    ...perModel,
    ...[...objects].map(([model, name]): [string, Json] => [name, eventObjectSchema(ctx, model)]),
    [names.event, { description: 'Any event of the outbox.', oneOf: perModel.map(([name]) => schemaRef(name)) }],
    [
      names.delivery,
      {
        type: 'object',
        additionalProperties: false,
        required: ['seq', 'event_id', 'type', 'object', 'status', 'attempts'],
        properties: {
          seq: { type: 'integer', description: "The event's seq: the delivery's id within its subscription." },
          event_id: { type: 'string' },
          type: { type: 'string' },
          object: { type: 'string', description: '`<Model>:<pk>`' },
          status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
          attempts: { type: 'integer', minimum: 0 },
          next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
          last_status: { type: ['integer', 'null'] },
          last_error: { type: ['string', 'null'] },
          done_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    ],
  ];
}

/** OpenAPI 3.1 `webhooks`: what every subscription receives, signed as Standard Webhooks says. */
export function eventWebhooks(ctx: OpenApiContext, names: EventSchemaNames): Json {
  if (eventTypes(ctx.ir).size === 0) return {};
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  return {
    webhooks: {
      event: {
        post: {
          summary: 'An event, sent to each webhook subscription it matches',
          description:
            'At least once, in seq order for the events of one object. A 2xx acknowledges it; anything else (or no answer within webhooks.timeout) is tried again with backoff, Retry-After honoured on 429 and 503.',
          operationId: 'receiveEvent',
          parameters: [
            header('webhook-id', "The event's id: the same on every attempt."),
            header('webhook-timestamp', 'Seconds since the epoch, when this attempt was signed.'),
            header(
              'webhook-signature',
              '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the subscription\'s secret.',
            ),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: schemaRef(names.event) } } },
          responses: { '200': { description: 'Acknowledged (any 2xx).' } },
          // The receiver checks the signature, not credentials of this API.
          security: [],
        },
      },
    },
  };
}

export function eventPaths(ctx: OpenApiContext, ids: OperationIds, names: EventSchemaNames): [string, Json][] {
  if (eventTypes(ctx.ir).size === 0) return [];
  // A model of this API, for the examples: the first with events.
  const example = [...eventTypes(ctx.ir).keys()][0]!;
  const admin = ctx.ir.auth ? { security: requirements(ctx, 'required') } : {};
  // Without auth nobody is refused.
  const errors = (statuses: number[]) =>
    errorResponses(ctx.ir.auth ? statuses : statuses.filter((s) => s !== 401 && s !== 403));
  const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
  const op = (id: string, method: string, spec: Json): Json => ({
    tags: [EVENTS_TAG.name],
    operationId: ids.take(id, method),
    ...spec,
  });
  return [
    [
      '/_events',
      {
        get: op('getEvents', 'GET', {
          summary: 'The change feed (Server-Sent Events)',
          description:
            'Each event as `id: <seq>`, `event: <type>`, `data: <the event as JSON>`, only to callers who may view its object, with the fields they may read. With Last-Event-ID, every retained event after it first, then the live ones; `event: reset` when those are no longer retained. A heartbeat comment every 15 s.',
          parameters: [
            {
              name: 'types',
              in: 'query',
              description: `Comma-separated: \`${example}.create\`, \`${example}.*\`, \`*\`.`,
              schema: { type: 'string' },
            },
            {
              name: 'last_event_id',
              in: 'query',
              description: 'As the Last-Event-ID header.',
              schema: { type: 'integer', minimum: 0 },
            },
            { name: 'Last-Event-ID', in: 'header', schema: { type: 'integer', minimum: 0 } },
          ],
          responses: {
            '200': { description: 'The feed.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            ...errors([400, 429, 500, 503]),
          },
          ...(ctx.ir.auth ? { security: requirements(ctx, 'optional') } : {}),
        }),
      },
    ],
    [
      '/_webhooks',
      {
        get: op('listWebhooks', 'GET', {
          summary: 'The webhook subscriptions, with their deliveries counted',
          responses: {
            '200': {
              description:
                'Each subscription of service.ini, its pending, delivered and dead deliveries, and its last error.',
              ...content({
                type: 'object',
                additionalProperties: false,
                required: ['data'],
                properties: {
                  data: { type: 'array', items: { type: 'object', additionalProperties: true } },
                  dispatch: { type: 'boolean' },
                },
              }),
            },
            ...errors([400, 401, 403, 500, 503]),
          },
          ...admin,
        }),
      },
    ],
    [
      '/_webhooks/{name}/deliveries',
      {
        get: op('listWebhookDeliveries', 'GET', {
          summary: "A subscription's deliveries, in seq order",
          parameters: [
            name,
            { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'delivered', 'dead'] } },
            { name: '_limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } },
            {
              name: '_after',
              in: 'query',
              description: 'The seq after which the page starts (from `next`).',
              schema: { type: 'integer', minimum: 0 },
            },
          ],
          responses: {
            '200': {
              description: 'A page of deliveries; `next` links to the following page.',
              ...content({
                type: 'object',
                additionalProperties: false,
                required: ['data'],
                properties: { data: { type: 'array', items: schemaRef(names.delivery) }, next: { type: 'string' } },
              }),
            },
            ...errors([400, 401, 403, 404, 500, 503]),
          },
          ...admin,
        }),
      },
    ],
    [
      '/_webhooks/{name}/deliveries/{seq}/retry',
      {
        post: op('retryWebhookDelivery', 'POST', {
          summary: 'Send a delivery again now (dead or pending), its attempts counted from zero',
          parameters: [name, { name: 'seq', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
          responses: {
            '200': {
              description: 'Due now.',
              ...content({ type: 'object', additionalProperties: false, properties: { retried: { type: 'integer' } } }),
            },
            ...errors([400, 401, 403, 404, 500, 503]),
          },
          ...admin,
        }),
      },
    ],
    [
      '/_webhooks/{name}/retry-dead',
      {
        post: op('retryDeadWebhookDeliveries', 'POST', {
          summary: 'Send every dead delivery of a subscription again now',
          parameters: [name],
          responses: {
            '200': {
              description: 'How many are due again.',
              ...content({ type: 'object', additionalProperties: false, properties: { retried: { type: 'integer' } } }),
            },
            ...errors([400, 401, 403, 404, 500, 503]),
          },
          ...admin,
        }),
      },
    ],
  ];
}

/**
 * An object as its events carry it: the model's answer without `_self`, which an event has no
 * request to make it of (a probe's webhook bodies failed the answer's schema on it).
 */
function eventObjectSchema(ctx: OpenApiContext, name: string): Json {
  const model = ctx.ir.models.find((m) => m.name === name)!;
  const answer = shownObjectSchema(ctx.types, model, (target) => ctx.modelRef(target, 'item'));
  const { _self: _unused, ...properties } = answer['properties'] as Json;
  const required = (answer['required'] as string[]).filter((field) => field !== '_self');
  return {
    ...answer,
    properties,
    required,
    description: `${name} as its events carry it: as an admin reads it, hidden fields left out, without _self.`,
  };
}
