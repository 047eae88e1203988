/**
 * The route schemas every resource shares: path parameters, the query parameters
 * Fastify checks before a handler runs, and the answers (a page, a status) around each model's
 * own object schema. The query language itself (values, operators, filters) is lib/http/query.ts's:
 * it knows what each caller may see, so the schemas only say which parameters exist, that
 * each is given once, and that the lists may be given as several.
 */

/** A parameter given once (a repeated one arrives as a list, which query.ts refuses by name). */
const once = { type: 'string' } as const;

/** A list: comma-separated, or the parameter repeated (it then arrives as a list, which query.ts joins). */
const list = { type: ['string', 'array'], items: { type: 'string' } } as const;

/** GET on a collection: paging, sorting, fields, `_count`; any other parameter is a filter. */
export const listQuery = {
  type: 'object',
  properties: { _limit: once, _page: once, _start: once, _after: once, _sort: list, _fields: list, _count: {} },
} as const;

/**
 * A list route's query string as Fastify hands it over (the route's `Querystring`): paging,
 * sorting and `_fields` by these names, and any other parameter a filter on the field it names
 * (lib/http/query.ts checks each against what the caller may see).
 */
export type ListQuery = Readonly<Record<string, string | readonly string[] | undefined>>;

/** An item route's query string. */
export interface ItemQuery {
  readonly _fields?: string | readonly string[];
}

/** GET on one object: `_fields` only. */
export const itemQuery = { type: 'object', properties: { _fields: list }, additionalProperties: false } as const;

/**
 * A create, or a change or delete of one object: no query parameter. A filter there would be
 * dropped (`DELETE /reviews/2?rating=5` deleted review 2 whatever its rating), and a filter is
 * never dropped: a 400 names it.
 */
export const noQuery = { type: 'object', additionalProperties: false } as const;

const params = new Map<string, object>();

/** The path parameters of a route, each a key as written in the URL (a key of the wrong type is a 404 from the repository, an empty one a 404 from app.ts, never a 400). */
export function pathParams(...names: string[]): object {
  const key = names.join('/');
  let schema = params.get(key);
  if (!schema) {
    schema = {
      type: 'object',
      required: names,
      properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
    };
    params.set(key, schema);
  }
  return schema;
}

const whole = { type: 'integer', minimum: 0 } as const;

/**
 * The names an answer gives every object besides its fields, which a change of one object may say
 * back (lib/http/echoes.ts compares them with the object): the bodies of PATCH and PUT of an item
 * take them, a change of many does not.
 */
export const answerNames = { _type: once, _pk: once, _self: once } as const;

/** Whether `name` is one of `answerNames`. */
export function isAnswerName(name: string): boolean {
  return Object.hasOwn(answerNames, name);
}

/** A page of objects: the collection envelope around the model's object schema. */
export function pageOf(item: object) {
  return {
    type: 'object',
    required: ['total', 'count', 'start', 'took', 'fields', 'data'],
    properties: {
      total: whole,
      count: whole,
      start: whole,
      took: whole,
      fields: once,
      next: once,
      data: { type: 'array', items: item },
    },
    additionalProperties: false,
  } as const;
}

/** The answer of a delete, and of changes to many objects (with `count`): lib/errors.ts's status body. */
export const statusAnswer = {
  type: 'object',
  required: ['status_code', 'title', 'explanation', 'message', 'timestamp', 'request_url'],
  properties: {
    status_code: { type: 'integer' },
    title: { type: 'string' },
    explanation: { type: 'string' },
    message: { type: ['string', 'null'] },
    timestamp: { type: 'string' },
    request_url: { type: 'string' },
    count: whole,
  },
  additionalProperties: false,
} as const;

/** A new API token (`POST /auth/token`, `/auth/reset_token`). */
export const tokenAnswer = {
  ...statusAnswer,
  required: [...statusAnswer.required, 'token'],
  properties: { ...statusAnswer.properties, token: { type: 'string' } },
} as const;

const below = new WeakMap<object, Map<string, object>>();

/**
 * The body of a create below a parent (`POST /clubs/{id}/teams`): the model's create body, but the
 * link to the parent is the URL's, so the body need not give it (and may not: writes.ts refuses it
 * there). A required link once left such a route no body it took.
 */
export function createdBelowBody(create: { readonly required?: readonly string[] }, link: string): object {
  let byLink = below.get(create);
  if (!byLink) below.set(create, (byLink = new Map()));
  let schema = byLink.get(link);
  if (!schema)
    byLink.set(link, (schema = { ...create, required: (create.required ?? []).filter((name) => name !== link) }));
  return schema;
}
