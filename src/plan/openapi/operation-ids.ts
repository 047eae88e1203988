/**
 * operationIds, named as a client author would name the methods of an SDK: the action and the
 * model (`listStories`, `createStory`, `getStory`, `updateStory`, `replaceStory`, `deleteStory`,
 * `updateStories`, `deleteStories`), after the models of the parents for nested routes
 * (`listAuthorBooks`, `getPostComment`) and the field for attribute routes (`getUserSettings`).
 * Every generator of clients turns them into method names, so they depend on the RAML alone (never
 * on the order of build steps) and stay unique: a name already taken gets the method
 * (`updateAuthorsPut`, for the PUT that does what PATCH does), then a number.
 */
import pluralize from 'pluralize';
import type { Action, HttpMethod, Route, ServiceIR } from '../../ir/types.js';
import { parentsOf } from '../../ir/parents.js';
import { pascal } from '../shared/names.js';

export class OperationIds {
  readonly #taken = new Set<string>();

  /** `name`, or the first free one of `name<Method>`, `name<Method>2`… */
  take(name: string, method: string): string {
    let id = name;
    if (this.#taken.has(id)) id = `${name}${pascal(method.toLowerCase())}`;
    for (let i = 2, base = id; this.#taken.has(id); i++) id = `${base}${i}`;
    this.#taken.add(id);
    return id;
  }
}

/** `GET /stories/:id` (the IR's path), the key of an operation in {@link routeOperationIds}. */
export function operationKey(method: HttpMethod, path: string): string {
  return `${method} ${path}`;
}

/**
 * The operationId of every operation of the IR's routes (HEAD goes with GET and has none),
 * keyed by {@link operationKey}. Routes come in the IR's order; on each, the method an action is
 * usually served with comes first, so PATCH keeps `updateAuthors` whatever order the RAML lists
 * PATCH and PUT in.
 */
export function routeOperationIds(ir: ServiceIR, ids: OperationIds): Map<string, string> {
  const found = new Map<string, string>();
  for (const route of ir.routes) {
    const operations = route.operations
      .filter((o) => o.method !== 'HEAD')
      .sort((a, b) => Number(a.method !== USUAL_METHOD[a.action]) - Number(b.method !== USUAL_METHOD[b.action]));
    for (const op of operations)
      found.set(operationKey(op.method, route.path), ids.take(operationName(route, op.action), op.method));
  }
  return found;
}

const USUAL_METHOD: Readonly<Record<Action, HttpMethod>> = {
  index: 'GET',
  create: 'POST',
  show: 'GET',
  update: 'PATCH',
  replace: 'PUT',
  delete: 'DELETE',
  update_many: 'PATCH',
  delete_many: 'DELETE',
  collection_options: 'OPTIONS',
  item_options: 'OPTIONS',
};

/** `listAuthorBooks`: the verb, the models of the parents, then what the route serves. */
function operationName(route: Route, action: Action): string {
  const parents = parentsOf(route)
    .map((p) => p.model)
    .join('');
  if (route.kind === 'attribute') {
    // The field of the parent: read whole, or merged into (POST).
    const verb = action === 'create' ? 'update' : 'get';
    return `${verb}${parents}${pascal(route.attribute ?? '')}`;
  }
  const one = `${parents}${route.model}`;
  const many = `${parents}${plural(route.model)}`;
  switch (action) {
    case 'index':
      return `list${many}`;
    case 'create':
      return `create${one}`;
    case 'show':
      return `get${one}`;
    case 'update':
      return `update${one}`;
    case 'replace':
      return `replace${one}`;
    case 'delete':
      return `delete${one}`;
    case 'update_many':
      return `update${many}`;
    case 'delete_many':
      return `delete${many}`;
    case 'collection_options':
      return `options${many}`;
    case 'item_options':
      return `options${one}`;
  }
}

/** `Stories`; `NewsList` where the plural is the singular, so that `getNews` and `listNewsList` differ. */
function plural(model: string): string {
  const many = pluralize.plural(model);
  return many === model ? `${model}List` : many;
}
