/**
 * Path, query and header parameters. Path parameters hold keys (lookup is by primary key,
 * whatever the RAML calls the parameter). Query parameters are the collection query language,
 * with exactly the operators the runtime's `lib/http/query.ts` accepts on each
 * field: `_limit`… are shared components, each model's filters are components named
 * `<Model>.<parameter>`, referenced by its collection reads and bulk changes. A parameter that
 * takes a list takes it comma-separated (`a=1,2`: the canonical form, `style: form` with
 * `explode: false`) or repeated (`a=1&a=2`, what most generated clients send): the runtime reads
 * both alike.
 */
import { operatorsFor, type QueryOperatorSpec } from '../../../runtime/src/lib/query-operators.js';
import { parentsOf } from '../../ir/parents.js';
import type { Field, Model, Route } from '../../ir/types.js';
import { isSecretField } from '../shared/field-types.js';
import { searchFields } from '../shared/search.js';
import { type Json, type OpenApiContext } from './context.js';
import { keyExample } from './examples.js';

const parameterRef = (name: string): Json => ({ $ref: `#/components/parameters/${name}` });

/** A list in a query parameter: comma-separated, or the parameter repeated. */
const LIST_STYLE = { style: 'form', explode: false } as const;

/** `If-Match` on a read, change or delete of one object, and on writes of a collection (lib/http/etag.ts). */
export const ifMatch = (): Json => parameterRef('If-Match');

const IF_MATCH_PARAMETER: Json = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the object as it was read: the change is made, or the object read, only if it is still that one (else 412, and nothing changes). `*` matches any. A collection has no ETag: on a write of a collection (a create, a change or delete of many) only `*` holds.',
  schema: { type: 'string' },
  example: '"3f1Tz5mQ0bWxJ9kLr2VhYcN8aPe"',
};

/** `If-None-Match` on a read of one object (lib/http/etag.ts). */
export const ifNoneMatch = (): Json => parameterRef('If-None-Match');

const IF_NONE_MATCH_PARAMETER: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the object as the caller holds it: while the object is still that one, the answer is 304 with no body. `*` matches any.',
  schema: { type: 'string' },
  example: '"3f1Tz5mQ0bWxJ9kLr2VhYcN8aPe"',
};

const NAMES = { type: 'array', items: { type: 'string' } } as const;

/** The query parameters every collection read takes, besides the filters. */
const PAGING: readonly [string, Json][] = [
  [
    '_limit',
    query(
      '_limit',
      { type: 'integer', minimum: 0 },
      'Items per page (default 20; at most max_limit, public_max_limit for anonymous callers).',
    ),
  ],
  ['_page', query('_page', { type: 'integer', minimum: 0 }, 'Zero-based page number; not with _start.')],
  ['_start', query('_start', { type: 'integer', minimum: 0 }, 'Offset of the first item; not with _page.')],
  [
    '_after',
    query(
      '_after',
      { type: 'string' },
      "A cursor from a page's `next` link: the page after it, in the same `_sort` order, as cheap as the first one; not with _start or _page.",
    ),
  ],
  [
    '_sort',
    query('_sort', NAMES, 'Fields to sort by, comma-separated or repeated; `-name` sorts descending.', LIST_STYLE),
  ],
  [
    '_fields',
    query('_fields', NAMES, 'Fields to return, comma-separated or repeated (`-name`: all but those).', LIST_STYLE),
  ],
  [
    '_count',
    query(
      '_count',
      { type: 'string' },
      'Given bare, `true` or `1`: answer only `{"count": N}` (`false` or `0`: the page).',
    ),
  ],
];

/** Full-text search: on collection reads and bulk changes of models with text fields. */
const SEARCH_QUERY = query(
  'q',
  { type: 'string', maxLength: 512 },
  'Full-text search: objects with every word (whole words, any case, accents ignored; punctuation separates words and is never syntax) in their text fields, best matches first without _sort. At most 32 words.',
);

function searchFieldsParameter(model: Model): Json {
  const names = searchFields(model).map((f) => f.name);
  const description = `The text fields q searches, comma-separated or repeated (default: every one the caller may read: ${names.join(', ')}).`;
  return query('_search_fields', { type: 'array', items: { type: 'string', enum: names } }, description, LIST_STYLE);
}

function searchParameters(model: Model): Json[] {
  return searchFields(model).length ? [parameterRef('q'), parameterRef(`${model.name}._search_fields`)] : [];
}

function query(name: string, schema: Json, description: string, extra: Json = {}): Json {
  return { name, in: 'query', description, schema, ...extra };
}

/** `components/parameters`: the paging parameters and every filter of every model a route lists or changes in bulk. */
export function componentParameters(ctx: OpenApiContext): [string, Json][] {
  const filtered = ctx.models.filter((m) => ctx.ir.routes.some((r) => r.kind === 'collection' && r.model === m.name));
  const searched = filtered.filter((m) => searchFields(m).length);
  const search: [string, Json][] = searched.length
    ? [
        ['q', SEARCH_QUERY],
        ...searched.map((m): [string, Json] => [`${m.name}._search_fields`, searchFieldsParameter(m)]),
      ]
    : [];
  return [
    ['If-Match', IF_MATCH_PARAMETER],
    ['If-None-Match', IF_NONE_MATCH_PARAMETER],
    ...PAGING,
    ...search,
    ...filtered.flatMap((m) => filterParameters(ctx, m).map(([name, p]) => [`${m.name}.${name}`, p] as [string, Json])),
  ];
}

/** The query parameters of a collection read (`index`) or of a bulk change (filters only). */
export function collectionQuery(ctx: OpenApiContext, model: Model, paging: boolean): Json[] {
  const filters = [
    ...searchParameters(model),
    ...filterParameters(ctx, model).map(([name]) => parameterRef(`${model.name}.${name}`)),
  ];
  return paging ? [...PAGING.map(([name]) => parameterRef(name)), ...filters] : filters;
}

/** An item read takes `_fields` only. */
export function itemQuery(): Json[] {
  return [parameterRef('_fields')];
}

/**
 * The operators the runtime accepts on a field (its table, runtime/src/lib/query-operators.ts):
 * dicts, files and pickles only `__isnull`; lists and to-many relationships what asks which
 * values they hold (`=`, `__in`, `__ne`, `__isnull`); the text operators only on text;
 * comparisons on the rest.
 */
export function operatorsOf(ctx: OpenApiContext, model: Model, field: Field): readonly QueryOperatorSpec[] {
  return operatorsFor(ctx.types.filtered(model, field));
}

function filterParameters(ctx: OpenApiContext, model: Model): [string, Json][] {
  return model.fields
    .filter((f) => !isSecretField(model, f))
    .flatMap((field) => {
      const many = field.type === 'list' || ctx.types.isToMany(model, field);
      return operatorsOf(ctx, model, field).map((op): [string, Json] => {
        const name = op.suffix === '' ? field.name : `${field.name}__${op.suffix}`;
        const meaning =
          many && op.filter !== 'isnull' ? `holds ${op.filter === 'not' ? 'none' : 'any'} of the values` : op.meaning;
        return [
          name,
          query(
            name,
            filterSchema(ctx, model, field, op),
            `${model.name} objects whose ${field.name} ${meaning}.`,
            listStyle(op),
          ),
        ];
      });
    });
}

/** `field=a,b`, `__in` and `__ne` take lists: comma-separated (OpenAPI's form style, not exploded) or repeated. */
function listStyle(op: QueryOperatorSpec): Json {
  return op.takes === 'list' ? LIST_STYLE : {};
}

function filterSchema(ctx: OpenApiContext, model: Model, field: Field, op: QueryOperatorSpec): Json {
  if (op.takes === 'boolean') return { type: 'boolean' };
  if (op.takes === 'text') return { type: 'string' };
  const value = scalarSchema(ctx, model, field);
  return op.takes === 'list' ? { type: 'array', items: value } : value;
}

/** One value a filter compares with: a list's item, a related object's key, or the field's own type. */
function scalarSchema(ctx: OpenApiContext, model: Model, field: Field): Json {
  const relation = field.type === 'relationship' ? model.relationships.find((r) => r.name === field.name) : undefined;
  if (relation) return ctx.types.keySchema(relation.target);
  const { description: _description, ...base } = ctx.types.baseSchema(model, field);
  if (field.type === 'list') return (base['items'] as Json | undefined) ?? { type: 'string' };
  return base;
}

/** The path parameters of a route, each typed by the key of the model whose item it names. */
export function pathParameters(ctx: OpenApiContext, route: Route): Json[] {
  return route.path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((segment) => {
      const name = segment.slice(1);
      const model = modelOfParameter(route, name);
      const schema = model ? ctx.types.keySchema(model) : { type: 'string' };
      const self = model !== null && ctx.ir.auth?.userModel === model ? ', or `self`: the caller' : '';
      const description = model ? `The ${ctx.model(model).primaryKey} of the ${model}${self}.` : 'A key.';
      const example = model ? keyExample(ctx, model) : 'key';
      return { name, in: 'path', required: true, description, schema, example };
    });
}

/** Whose key a path parameter holds: the route's item, its parent's, or (deeper) a grandparent's. */
function modelOfParameter(route: Route, name: string): string | null {
  if (route.itemParam === name) return route.model;
  return parentsOf(route).find((parent) => parent.param === name)?.model ?? null;
}
