/** The items a nested route lies below, read from the IR's chain of `RouteParent`s. */
import type { Route, RouteParent } from './types.js';

/**
 * The parent items a route's URL names, outermost first: `/projects/{id}/tasks/{tid}/checklist`
 * → the project, then the task. An attribute route's own item is one of them (its last).
 */
export function parentsOf(route: Route): RouteParent[] {
  const parents: RouteParent[] = [];
  for (let parent = route.parent; parent; parent = parent.parent) parents.unshift(parent);
  return parents;
}

/**
 * The items above the objects a route serves, outermost first: `parentsOf` without an attribute
 * route's own item, which is the object it serves (its rules decide on it, not a parent's).
 */
export function itemsAbove(route: Route): RouteParent[] {
  const parents = parentsOf(route);
  return route.kind === 'attribute' ? parents.slice(0, -1) : parents;
}
