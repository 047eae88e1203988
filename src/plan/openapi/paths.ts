/**
 * `paths`: every route of the IR with exactly the methods it serves (HEAD goes
 * with GET and is not listed), each with its parameters, body, answers and security.
 */
import { changesUnseen } from '../../acl/unseen-writes.js';
import type { Field, Model, Operation, Route } from '../../ir/types.js';
import { itemStorage } from '../shared/field-types.js';
import { groupOf } from '../shared/names.js';
import { routeSummary } from '../shared/route-summary.js';
import { schemaRef, type Json, type OpenApiContext } from './context.js';
import { bodyExample } from './examples.js';
import { requiredParentLink } from '../shared/parent-link.js';
import { createSchema } from './schemas.js';
import { operationKey } from './operation-ids.js';
import { collectionQuery, ifMatch, ifNoneMatch, itemQuery, pathParameters } from './parameters.js';
import {
  errorResponses,
  FORBIDDEN_WITHOUT_AUTH_MARK,
  isConditional,
  refusesWithoutAuth,
  routeErrors,
} from './responses.js';
import { attributeSchema } from './schemas.js';
import { operationSecurity } from './security.js';
import { createdObjectRoute, createLinks } from './links.js';

/** OpenAPI's order of the methods in a path item (lower-cased keys). */
export const METHOD_ORDER = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `/users/:username/profile` → `/users/{username}/profile`. */
export function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}');
}

/** The paths of the IR's routes; `operationIds` by `operationKey` (operation-ids.ts). */
export function routePaths(ctx: OpenApiContext, operationIds: ReadonlyMap<string, string>): [string, Json][] {
  return ctx.ir.routes.map((route) => {
    const operations = route.operations
      .filter((o) => o.method !== 'HEAD')
      .map((o): [string, Json] => [o.method.toLowerCase(), operation(ctx, route, o, operationIds)]);
    const parameters = pathParameters(ctx, route);
    return [openApiPath(route.path), { ...(parameters.length ? { parameters } : {}), ...inMethodOrder(operations) }];
  });
}

export function inMethodOrder(operations: readonly [string, Json][]): Json {
  return Object.fromEntries(
    [...operations].sort(([a], [b]) => METHOD_ORDER.indexOf(a as never) - METHOD_ORDER.indexOf(b as never)),
  );
}

function operation(ctx: OpenApiContext, route: Route, op: Operation, operationIds: ReadonlyMap<string, string>): Json {
  const model = ctx.model(route.model);
  const body = requestBody(ctx, route, model, op);
  const query =
    route.kind === 'attribute'
      ? []
      : op.action === 'index'
        ? collectionQuery(ctx, model, true)
        : op.action === 'show'
          ? itemQuery()
          : op.action === 'update_many' || op.action === 'delete_many'
            ? collectionQuery(ctx, model, false)
            : [];
  const parameters = isConditional(route, op.action)
    ? [...query, ifMatch()]
    : op.action === 'show'
      ? [...query, ifMatch(), ifNoneMatch()]
      : query;
  return {
    tags: [groupOf(route)],
    summary: routeSummary(route.kind, route.model, op.action),
    ...(op.description ? { description: op.description.trim() } : {}),
    operationId: operationIds.get(operationKey(op.method, route.path)),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: {
      ...success(ctx, route, op, operationIds),
      ...errorResponses(routeErrors(ctx, route, op.method, op.action)),
    },
    ...operationSecurity(ctx, route, op),
    ...(ctx.ir.auth && refusesWithoutAuth(ctx, route, op.method, op.action)
      ? { [FORBIDDEN_WITHOUT_AUTH_MARK]: true }
      : {}),
  };
}

function requestBody(ctx: OpenApiContext, route: Route, model: Model, op: Operation): Json | null {
  if (route.kind === 'attribute') {
    const field = attributeField(route, model);
    return op.action === 'create' && field ? json(mergeSchema(field), true) : null;
  }
  const which =
    op.action === 'create' || op.action === 'replace'
      ? 'create'
      : op.action === 'update' || op.action === 'update_many'
        ? 'update'
        : null;
  if (!which) return null;
  // Below a parent that gives a link the model requires: the body need not (nor may) give it.
  const link = requiredParentLink(route, model, op.action);
  const replacing = op.action === 'replace';
  const replace = replacing ? ctx.modelSchemaNames(model).replace : undefined;
  const schema = link
    ? createSchema(ctx, model, { givenByUrl: link, replacing })
    : replace
      ? schemaRef(replace)
      : ctx.modelRef(model.name, which);
  return json(schema, true, bodyExample(ctx, model, which, route));
}

/**
 * The body of a POST on an attribute: an object whose keys are merged into a dict, or are the
 * items to add to a list (`"-item"` removes one), which then constrain its keys as the runtime
 * reads them (lib/http/attributes.ts). Its values are free: `additionalProperties: true` says
 * so, or typed clients would take it for an empty object.
 */
function mergeSchema(field: Field): Json {
  if (field.type !== 'list')
    return {
      type: 'object',
      description: 'A JSON object: its keys are merged into the field.',
      additionalProperties: true,
    };
  const keys = listItemNames(field);
  return {
    type: 'object',
    description: 'A JSON object: each key is an item to add ("-item" removes it); the values are not read.',
    ...(keys ? { propertyNames: keys } : {}),
    additionalProperties: true,
  };
}

/** The keys that name an item of a list field, or one to remove (`-` first); null when any text is one. */
function listItemNames(field: Field): Json | null {
  if (field.choices?.length) {
    const items = field.choices.map(String);
    return { enum: [...items, ...items.map((item) => `-${item}`)] };
  }
  switch (itemStorage(field)) {
    case 'integer':
      return { pattern: '^-?[0-9]+$' };
    case 'real':
      return { pattern: '^-?-?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$' };
    case 'boolean':
      return { enum: ['true', 'false', '-true', '-false'] };
    default:
      return null;
  }
}

function success(ctx: OpenApiContext, route: Route, op: Operation, operationIds: ReadonlyMap<string, string>): Json {
  const model = ctx.model(route.model);
  const written = {
    Location: { description: 'The URL of the object (its _self).', schema: { type: 'string' } },
    ETag: etag(),
  };
  const allow = { Allow: { description: 'The methods this path serves.', schema: { type: 'string' } } };
  // A change answered to a caller who may make it but not view the object: a status body.
  const unseen = changesUnseen(ctx.ir, route);
  const orStatus = (schema: Json): Json => (unseen ? { anyOf: [schema, ctx.sharedRef('Status')] } : schema);
  const orUnseen = unseen ? ', or a status body to a caller who may change it but not read it' : '';
  if (route.kind === 'attribute') {
    const value = attributeSchema(ctx, model, route.attribute ?? '');
    if (op.action === 'index') return { '200': { description: `The ${route.attribute} field.`, ...content(value) } };
    if (op.action === 'create')
      return {
        '201': {
          description: `The ${route.attribute} field after the merge${orUnseen}.`,
          ...content(orStatus(value)),
        },
      };
  }
  switch (op.action) {
    case 'index':
      return {
        '200': {
          description: `A page of ${model.name} objects, or their count with _count.`,
          ...content({ anyOf: [ctx.modelRef(model.name, 'collection'), ctx.sharedRef('Count')] }),
        },
      };
    case 'show':
      return {
        '200': {
          description: `The ${model.name}.`,
          headers: { ETag: etag() },
          ...content(ctx.modelRef(model.name, 'item')),
        },
        '304': {
          description: `Not modified: If-None-Match names the ${model.name}'s ETag, and the object is still that one. No body.`,
          headers: { ETag: etag() },
        },
      };
    case 'create':
      return {
        '201': {
          description: `The new ${model.name}${route.parent ? `, linked to the ${route.parent.model}` : ''}.`,
          headers: written,
          ...content(ctx.modelRef(model.name, 'item')),
          ...createLinks(createdObjectRoute(ctx.ir, route), route.path, operationIds),
        },
      };
    case 'update':
    case 'replace':
      return {
        '200': {
          description: `The ${model.name} as it is now${orUnseen}.`,
          headers: written,
          ...content(orStatus(ctx.modelRef(model.name, 'item'))),
        },
      };
    case 'delete':
      return { '200': { description: 'Deleted.', ...content(ctx.sharedRef('Status')) } };
    case 'update_many':
    case 'delete_many':
      return {
        '200': {
          description: `How many ${model.name} objects changed (all of them, or none).`,
          ...content(ctx.sharedRef('Status')),
        },
      };
    case 'collection_options':
    case 'item_options':
      return { '200': { description: 'The methods this path serves, in Allow.', headers: allow } };
  }
}

function attributeField(route: Route, model: Model) {
  return model.fields.find((f) => f.name === route.attribute);
}

/** The ETag header of an answer that holds one object (lib/http/etag.ts): a shared component. */
const etag = (): Json => ({ $ref: '#/components/headers/ETag' });

export function content(schema: Json, example?: unknown): Json {
  return { content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } } };
}

export function json(schema: Json, required: boolean, example?: unknown): Json {
  return { required, ...content(schema, example) };
}
