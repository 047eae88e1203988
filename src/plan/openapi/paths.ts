/**
 * `paths`: every route of the IR with exactly the methods it serves (HEAD goes
 * with GET and is not listed), each with its parameters, body, answers and security.
 */
import type { Model, Operation, Route } from '../../ir/types.js';
import { camel, groupOf } from '../shared/names.js';
import { routeSummary } from '../project/readme.js';
import { type Json, type OpenApiContext } from './context.js';
import { collectionQuery, itemQuery, pathParameters } from './parameters.js';
import { errorResponses, routeErrors } from './responses.js';
import { attributeSchema } from './schemas.js';
import { operationSecurity } from './security.js';

/** OpenAPI's order of the methods in a path item (lower-cased keys). */
export const METHOD_ORDER = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `/users/:username/profile` → `/users/{username}/profile`. */
export function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}');
}

export function routePaths(ctx: OpenApiContext, operationIds: OperationIds): [string, Json][] {
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

function operation(ctx: OpenApiContext, route: Route, op: Operation, operationIds: OperationIds): Json {
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
  return {
    tags: [groupOf(route)],
    summary: routeSummary(route.kind, route.model, op.action),
    ...(op.description ? { description: op.description.trim() } : {}),
    operationId: operationIds.take(op.method, route.path),
    ...(query.length ? { parameters: query } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...success(ctx, route, op), ...errorResponses(routeErrors(ctx, route, op.method, op.action)) },
    ...operationSecurity(ctx, route, op),
  };
}

function requestBody(ctx: OpenApiContext, route: Route, model: Model, op: Operation): Json | null {
  if (route.kind === 'attribute') {
    if (op.action !== 'create') return null;
    const merge =
      attributeField(route, model)?.type === 'list'
        ? 'each key is an item to add ("-item" removes it)'
        : 'its keys are merged into the field';
    return json({ type: 'object', description: `A JSON object: ${merge}.` }, true);
  }
  const which =
    op.action === 'create' || op.action === 'replace'
      ? 'create'
      : op.action === 'update' || op.action === 'update_many'
        ? 'update'
        : null;
  return which ? json(ctx.modelRef(model.name, which), true) : null;
}

function success(ctx: OpenApiContext, route: Route, op: Operation): Json {
  const model = ctx.model(route.model);
  const location = { Location: { description: 'The URL of the object (its _self).', schema: { type: 'string' } } };
  const allow = { Allow: { description: 'The methods this path serves.', schema: { type: 'string' } } };
  if (route.kind === 'attribute') {
    const value = attributeSchema(ctx, model, route.attribute ?? '');
    if (op.action === 'index') return { '200': { description: `The ${route.attribute} field.`, ...content(value) } };
    if (op.action === 'create')
      return { '201': { description: `The ${route.attribute} field after the merge.`, ...content(value) } };
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
      return { '200': { description: `The ${model.name}.`, ...content(ctx.modelRef(model.name, 'item')) } };
    case 'create':
      return {
        '201': {
          description: `The new ${model.name}${route.parent ? `, linked to the ${route.parent.model}` : ''}.`,
          headers: location,
          ...content(ctx.modelRef(model.name, 'item')),
        },
      };
    case 'update':
    case 'replace':
      return {
        '200': {
          description: `The ${model.name} as it is now.`,
          headers: location,
          ...content(ctx.modelRef(model.name, 'item')),
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

export function content(schema: Json): Json {
  return { content: { 'application/json': { schema } } };
}

export function json(schema: Json, required: boolean): Json {
  return { required, ...content(schema) };
}

/** operationIds: `getUsersByUsernameProfile`, unique in the document. */
export class OperationIds {
  readonly #taken = new Set<string>();

  take(method: string, path: string): string {
    const words = path
      .split('/')
      .filter(Boolean)
      .map((s) => (s.startsWith(':') ? `By${pascalWord(s.slice(1))}` : pascalWord(s)));
    const base = `${method.toLowerCase()}${words.join('')}`;
    let id = base;
    for (let i = 2; this.#taken.has(id); i++) id = `${base}${i}`;
    this.#taken.add(id);
    return id;
  }
}

function pascalWord(text: string): string {
  const word = camel(text);
  return word.charAt(0).toUpperCase() + word.slice(1);
}
