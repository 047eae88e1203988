/**
 * Where an object's `_self` comes from: the route whose path its own fields fill. Its top-level item
 * route, by its key; else a nested item or singular route whose parent's key the object holds (a
 * to-one link back to the parent). An object served only deeper (below a grandparent, whose key it
 * does not hold) has none: its URL is known only from the request that names it.
 */
import type { Model, Route, ServiceIR } from './types.js';

export interface SelfRoute {
  readonly route: Route;
  /** Each path parameter of the route, and the field of the object that fills it. */
  readonly params: Readonly<Record<string, string>>;
  /** The object's link to the parent the route is nested below (null: a top-level route). */
  readonly parentLink: string | null;
}

export function selfRoute(ir: ServiceIR, model: Model): SelfRoute | undefined {
  const routes = ir.routes.filter((r) => r.model === model.name && (r.kind === 'item' || r.kind === 'singular'));
  const top = routes.find((r) => r.kind === 'item' && !r.parent);
  if (top) return { route: top, params: { [top.itemParam!]: model.primaryKey }, parentLink: null };
  for (const route of routes) {
    const parentModel = ir.models.find((m) => m.name === route.parent?.model);
    const link = parentModel?.relationships.find((r) => r.name === route.parent!.field);
    const inverse = model.relationships.find((r) => r.name === link?.inverse);
    if (!route.parent || !inverse || inverse.cardinality !== 'one') continue;
    const params: Record<string, string> = { [route.parent.param]: inverse.name };
    if (route.itemParam) params[route.itemParam] = model.primaryKey;
    // Deeper routes need keys of grandparents, which the object does not hold.
    if (route.path.split('/').some((s) => s.startsWith(':') && !(s.slice(1) in params))) continue;
    return { route, params, parentLink: inverse.name };
  }
  return undefined;
}

/**
 * A collection route's item route right below it (`/a/:id/b` → `/a/:id/b/:bid`), for a model that has
 * no `selfRoute`: the runtime names the collection's objects by it (RouteSpec's `itemParam`).
 */
export function itemRouteBelow(ir: ServiceIR, collection: Route): Route | undefined {
  return ir.routes.find(
    (r) =>
      r.kind === 'item' &&
      r.model === collection.model &&
      r.itemParam !== null &&
      r.path === `${collection.path}/:${r.itemParam}`,
  );
}
