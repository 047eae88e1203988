/**
 * The view of `src/routes/<group>.ts`: one Fastify plugin per top-level resource, registering
 * every route below it with the actions of contract §4 and the 405/OPTIONS completion.
 */
import type { Action, Model, Route, ServiceIR } from '../ir/types.js';
import { isSafeIdentifier } from '../ir/naming.js';
import { commentText, literal, quote, raw } from './literal.js';
import { camel, groupOf, kebab, modelNames, routeGroupNames, withArticle } from './names.js';

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
  readonly handlers: readonly { readonly method: string; readonly options: string; readonly handler: string }[];
  readonly allowed: string;
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

/** Which request body each action validates against (the model's `create`/`update`/`replace`). */
const BODY: Partial<Record<Action, 'create' | 'update' | 'replace'>> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  update_many: 'update',
};

export function routeGroups(ir: ServiceIR): Map<string, Route[]> {
  const groups = new Map<string, Route[]>();
  for (const route of ir.routes) {
    const group = groupOf(route);
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  return groups;
}

export function routesView(ir: ServiceIR, group: string, routes: readonly Route[]): RoutesView {
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const used = [...new Set(routes.flatMap((r) => (r.parent ? [r.model, r.parent.model] : [r.model])))].sort();
  const imports = used.map((name) => {
    const names = modelNames({ name });
    const needsBodies = routes.some((r) => r.model === name && r.kind !== 'attribute' && r.operations.some((o) => BODY[o.action]));
    return { names: needsBodies ? [names.variable, names.bodies] : [names.variable], from: `../models/${names.file}.js` };
  });
  // Route variables must not shadow the plugin's own names or the imports.
  const taken = new Set<string>(['app', 'services', 'actionsFor', 'completeRoute', ...imports.flatMap((i) => i.names)]);
  return {
    doc: commentText(`Routes below /${group}.`),
    plugin: routeGroupNames(group).plugin,
    imports: imports.map((i) => ({ names: i.names.join(', '), from: i.from })),
    routes: routes.map((route) => routeView(route, models.get(route.model)!, uniqueName(variableOf(route), taken))),
  };
}

function routeView(route: Route, model: Model, variable: string): RouteView {
  const names = modelNames(model);
  const served = route.operations.filter((o) => HANDLER[o.action]);
  const methods = [...new Set(route.operations.map((o) => o.method))].sort();
  return {
    comment: commentText(`${methods.join(', ')} ${route.ramlPath} — ${describe(route)}`),
    variable,
    spec: literal({
      kind: route.kind,
      model: raw(route.kind === 'attribute' ? modelNames({ name: route.parent!.model }).variable : names.variable),
      itemParam: route.itemParam ?? undefined,
      parent: route.parent ? { model: raw(modelNames({ name: route.parent.model }).variable), param: route.parent.param, field: route.parent.field } : undefined,
      acl: route.acl,
    }),
    path: quote(route.path),
    handlers: served
      .filter((o) => o.method !== 'HEAD')
      .map((o) => {
        const body = route.kind === 'attribute' ? (o.action === 'create' ? "{ type: 'object' }" : undefined) : BODY[o.action] ? `${names.bodies}.${BODY[o.action]}` : undefined;
        return { method: o.method.toLowerCase(), options: body ? `{ schema: { body: ${body} }, preValidation: ${variable}.guard }, ` : '', handler: `${variable}.${HANDLER[o.action]!}` };
      }),
    allowed: literal(methods),
  };
}

function describe(route: Route): string {
  switch (route.kind) {
    case 'collection':
      return route.parent ? `the ${route.model} objects of ${withArticle(route.parent.model)} (${route.parent.field})` : `the ${route.model} collection`;
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
