/**
 * The view of `src/routes/<group>.ts`: one Fastify plugin per top-level resource, registering
 * every route below it with its actions (index, create, show, update, …; see the generated
 * README) and the 405/OPTIONS completion.
 */
import { parentsOf } from '../../ir/parents.js';
import type { Action, Field, Model, Operation, Route, RouteParent, ServiceIR } from '../../ir/types.js';
import { isSafeIdentifier } from '../../ir/naming.js';
import { itemRouteBelow, selfRoute } from '../../ir/self-route.js';
import type { FieldTypes } from '../shared/field-types.js';
import { commentText, literal, quote, raw } from '../shared/literal.js';
import { camel, groupOf, kebab, modelNames, routeGroupNames, withArticle } from '../shared/names.js';
import { requiredParentLink } from '../shared/parent-link.js';

export interface RoutesView {
  readonly doc: string;
  readonly plugin: string;
  readonly imports: readonly { readonly names: string; readonly from: string }[];
  readonly routes: readonly RouteView[];
}

export interface RouteView {
  readonly comment: string;
  readonly variable: string;
  readonly spec: string;
  readonly path: string;
  readonly handlers: readonly HandlerView[];
  readonly allowed: string;
}

/** `app.<method><Generic>(path, { schema, preValidation }, handler)`. */
export interface HandlerView {
  readonly method: string;
  /** Fastify's route generic: the TypeScript types of the body, path and query parameters the schema checks. */
  readonly generic: string;
  /** The Fastify schema's parts (`params`, `querystring`, `body`, `response`), each as source text. */
  readonly schema: readonly { readonly part: string; readonly value: string }[];
  /** Whether the request is authorized before its body is validated (`preValidation`), so a caller who may not write learns nothing from validation errors. */
  readonly guard: boolean;
  readonly handler: string;
}

/** Action → the handler of `actionsFor` that serves it (OPTIONS and HEAD are completed by routing). */
const HANDLER: Partial<Record<Action, string>> = {
  index: 'index',
  create: 'create',
  update_many: 'updateMany',
  delete_many: 'deleteMany',
  show: 'show',
  update: 'update',
  replace: 'replace',
  delete: 'delete',
};

/** Which request body each action validates against (the model's `create`/`update`/`replace`/`updateMany`). */
const BODY: Partial<Record<Action, 'create' | 'update' | 'replace' | 'updateMany'>> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  update_many: 'updateMany',
};

/**
 * The query parameters each action takes (lib/http/schemas.ts): a create and the writes of one
 * object take none, the writes of many take the list's filters (lib/http/bulk.ts reads them).
 */
const QUERY: Partial<Record<Action, string>> = {
  index: 'listQuery',
  show: 'itemQuery',
  create: 'noQuery',
  update: 'noQuery',
  replace: 'noQuery',
  delete: 'noQuery',
};

/** The type of each of those query strings (lib/http/schemas.ts). */
const QUERY_TYPE: Readonly<Record<string, string>> = { listQuery: 'ListQuery', itemQuery: 'ItemQuery' };

/** The TypeScript type of each body (the model's file): a replacement needs what a creation needs. */
const BODY_TYPE = { create: 'create', update: 'update', replace: 'create', updateMany: 'update' } as const;

/** What each action answers with: its status and the schema (`page`/`response`: the model's, from its file). */
const ANSWER: Partial<Record<Action, readonly [number, 'page' | 'response' | 'statusAnswer']>> = {
  index: [200, 'page'],
  show: [200, 'response'],
  create: [201, 'response'],
  update: [200, 'response'],
  replace: [200, 'response'],
  delete: [200, 'statusAnswer'],
  update_many: [200, 'statusAnswer'],
  delete_many: [200, 'statusAnswer'],
};

export function routeGroups(ir: ServiceIR): Map<string, Route[]> {
  const groups = new Map<string, Route[]>();
  for (const route of ir.routes) {
    const group = groupOf(route);
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  return groups;
}

export function routesView(ir: ServiceIR, group: string, routes: readonly Route[], types: FieldTypes): RoutesView {
  const models = new Map(ir.models.map((m) => [m.name, m]));
  // Attribute routes answer with a field's value: they use none of the model's or the shared schemas.
  const actionsOf = (model?: string) =>
    routes
      .filter((r) => r.kind !== 'attribute' && (model === undefined || r.model === model))
      .flatMap((r) => servedOperations(r).map((o) => o.action));
  const used = [...new Set(routes.flatMap((r) => [r.model, ...parentsOf(r).map((p) => p.model)]))].sort();
  const imports = [
    { names: sharedSchemaNames(routes, actionsOf(), models), from: '../lib/http/schemas.js' },
    ...used.map((name) => ({
      names: modelImportNames(name, actionsOf(name)),
      from: `../models/${modelNames({ name }).file}.js`,
    })),
  ];
  // Route variables must not shadow the plugin's own names or the imports.
  const plugin = routeGroupNames(group).plugin;
  const taken = new Set<string>(['app', plugin, 'actionsFor', 'completeRoute', ...imports.flatMap((i) => i.names)]);
  return {
    doc: commentText(`Routes below /${group}.`),
    plugin,
    imports: imports.filter((i) => i.names.length).map((i) => ({ names: i.names.join(', '), from: i.from })),
    routes: routes.map((route) => {
      const model = models.get(route.model)!;
      return routeView(route, model, uniqueName(variableOf(route), taken), types, itemsNamedBy(ir, route, model));
    }),
  };
}

/** What a route file takes from a model's file: the model, and the schemas its handlers use. */
function modelImportNames(model: string, actions: readonly Action[]): string[] {
  const names = modelNames({ name: model });
  const bodies = [...new Set(actions.flatMap((a) => (BODY[a] ? [BODY_TYPE[BODY[a]]] : [])))].sort();
  return [
    names.variable,
    ...(actions.some((a) => BODY[a]) ? [names.bodies] : []),
    ...bodies.map((body) => `type ${names[body]}`),
    ...(actions.some((a) => ANSWER[a]?.[1] === 'response') ? [names.response] : []),
    ...(actions.includes('index') ? [names.page] : []),
  ];
}

/** What a route file takes from lib/http/schemas.ts. */
function sharedSchemaNames(
  routes: readonly Route[],
  actions: readonly Action[],
  models: ReadonlyMap<string, Model>,
): string[] {
  const names = new Set<string>();
  if (routes.some((r) => pathParameterNames(r).length)) names.add('pathParams');
  const createsBelow = (r: Route) =>
    servedOperations(r).some((o) => o.action === 'create') && requiredParentLink(r, models.get(r.model)!, 'create');
  if (routes.some(createsBelow)) names.add('createdBelowBody');
  if (routes.some((r) => r.kind === 'attribute')) names.add('noQuery');
  for (const action of actions) {
    const query = QUERY[action];
    if (query) names.add(query);
    if (query && QUERY_TYPE[query]) names.add(`type ${QUERY_TYPE[query]}`);
    if (ANSWER[action]?.[1] === 'statusAnswer') names.add('statusAnswer');
  }
  return [...names].sort((a, b) => (withoutType(a) < withoutType(b) ? -1 : 1));
}

function withoutType(name: string): string {
  return name.replace(/^type /, '');
}

/** The operations a route registers a handler for (OPTIONS and HEAD are completed by routing). */
function servedOperations(route: Route): readonly Operation[] {
  return route.operations.filter((o) => HANDLER[o.action] && o.method !== 'HEAD');
}

/**
 * A collection of objects that name no URL of their own (served only below a grandparent): the
 * parameter of the item route below it, by which the runtime names them (RouteSpec's `itemParam`).
 */
function itemsNamedBy(ir: ServiceIR, route: Route, model: Model): string | undefined {
  if (route.kind !== 'collection' || selfRoute(ir, model)) return undefined;
  return itemRouteBelow(ir, route)?.itemParam ?? undefined;
}

function routeView(
  route: Route,
  model: Model,
  variable: string,
  types: FieldTypes,
  itemsBelow: string | undefined,
): RouteView {
  const served = servedOperations(route);
  const methods = [...new Set(route.operations.map((o) => o.method))].sort();
  return {
    comment: commentText(`${methods.join(', ')} ${route.ramlPath} — ${describe(route)}`),
    variable,
    spec: literal({
      kind: route.kind,
      model: raw(
        route.kind === 'attribute' ? modelNames({ name: route.parent!.model }).variable : modelNames(model).variable,
      ),
      itemParam: route.itemParam ?? itemsBelow,
      parent: parentSpec(route.parent),
      acl: route.acl,
      value: mergedValueSchema(route, types),
    }),
    path: quote(route.path),
    handlers: served.map((o) => {
      const schema = routeSchema(route, model, o.action, types);
      return {
        method: o.method.toLowerCase(),
        generic: routeGeneric(route, model, o.action),
        schema: Object.entries(schema).map(([part, value]) => ({ part, value })),
        guard: 'body' in schema,
        handler: HANDLER[o.action]!,
      };
    }),
    allowed: literal(methods),
  };
}

/**
 * An attribute route that merges (POST): the JSON Schema its field's value must meet once merged,
 * the one a PATCH of the item checks it against (`maxItems`, an item's `maxLength`, …).
 */
function mergedValueSchema(route: Route, types: FieldTypes): object | undefined {
  if (route.kind !== 'attribute' || !route.operations.some((o) => o.action === 'create')) return undefined;
  const { owner, field } = attributeOf(route, types);
  const { description: _description, ...value } = types.bodySchema(owner, field);
  return value;
}

/** An attribute route's field, and the model it is a field of (the parent's). */
function attributeOf(route: Route, types: FieldTypes): { owner: Model; field: Field } {
  const owner = types.model(route.parent!.model);
  return { owner, field: owner.fields.find((f) => f.name === route.attribute)! };
}

/** A route's parent for the runtime (RouteSpec's `parent`), with the item above it where it is nested itself. */
function parentSpec(parent: RouteParent | null): object | undefined {
  if (!parent) return undefined;
  return {
    model: raw(modelNames({ name: parent.model }).variable),
    param: parent.param,
    field: parent.field,
    parent: parentSpec(parent.parent),
  };
}

/**
 * The Fastify schema of one handler, as source text per part: its path parameters, query
 * parameters, body and answer (attribute routes answer with the field's value).
 */
function routeSchema(route: Route, model: Model, action: Action, types: FieldTypes): Record<string, string> {
  const names = modelNames(model);
  const params = pathParameterNames(route);
  const schema: Record<string, string> = params.length ? { params: `pathParams(${params.map(quote).join(', ')})` } : {};
  if (route.kind === 'attribute') {
    const { owner, field } = attributeOf(route, types);
    const { description: _description, ...value } = types.baseSchema(owner, field);
    // A field's value, read or changed: no query parameter applies to it.
    schema['querystring'] = 'noQuery';
    if (action === 'create') schema['body'] = "{ type: 'object' }";
    schema['response'] = `{ ${action === 'create' ? 201 : 200}: ${literal(value)} }`;
    return schema;
  }
  const query = QUERY[action];
  if (query) schema['querystring'] = query;
  const link = requiredParentLink(route, model, action);
  if (BODY[action])
    schema['body'] = link
      ? `createdBelowBody(${names.bodies}.create, ${quote(link)})`
      : `${names.bodies}.${BODY[action]}`;
  const answer = ANSWER[action];
  if (answer)
    schema['response'] = `{ ${answer[0]}: ${answer[1] === 'statusAnswer' ? 'statusAnswer' : names[answer[1]]} }`;
  return schema;
}

/**
 * `<{ Params: { id: string }; Body: StoryCreate }>`: what the handler's request holds once the
 * schema has passed it, for whoever adds a hook or a handler of their own to the route.
 */
function routeGeneric(route: Route, model: Model, action: Action): string {
  const parts: string[] = [];
  const params = pathParameterNames(route);
  if (params.length) parts.push(`Params: { ${params.map((p) => `${quotedKey(p)}: string`).join('; ')} }`);
  const query = route.kind === 'attribute' ? undefined : QUERY[action];
  if (query && QUERY_TYPE[query]) parts.push(`Querystring: ${QUERY_TYPE[query]}`);
  const body = route.kind === 'attribute' ? undefined : BODY[action];
  const link = requiredParentLink(route, model, action);
  const type = body && modelNames(model)[BODY_TYPE[body]];
  if (type) parts.push(`Body: ${link ? `Omit<${type}, ${quote(link)}>` : type}`);
  return parts.length ? `<{ ${parts.join('; ')} }>` : '';
}

function quotedKey(name: string): string {
  return isSafeIdentifier(name) ? name : quote(name);
}

/** `/posts/:slug/comments/:id` → `['slug', 'id']`. */
function pathParameterNames(route: Route): string[] {
  return route.path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));
}

function describe(route: Route): string {
  switch (route.kind) {
    case 'collection':
      return route.parent
        ? `the ${route.model} objects of ${withArticle(route.parent.model)} (${route.parent.field})`
        : `the ${route.model} collection`;
    case 'item':
      return `one ${route.model}, by ${route.itemParam}`;
    case 'singular':
      return `the ${route.model} of ${withArticle(route.parent!.model)} (${route.parent!.field})`;
    case 'attribute':
      return `the ${route.attribute} field of ${withArticle(route.model)}`;
  }
}

/** `/users/:username/stories` → `usersStories`; item routes end in `Item`. */
function variableOf(route: Route): string {
  const statics = route.path.split('/').filter((s) => s !== '' && !s.startsWith(':'));
  const base = camel(kebab(statics.join('-'))) || 'root';
  return route.kind === 'item' ? `${base}Item` : base;
}

function uniqueName(wanted: string, taken: Set<string>): string {
  const name = isSafeIdentifier(wanted) ? wanted : `${wanted}Route`;
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name}${i}`;
  taken.add(candidate);
  return candidate;
}
