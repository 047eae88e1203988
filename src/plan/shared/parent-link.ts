/** How the objects of a nested route point back at the parent item their URL names. */
import type { Model, RouteParent } from '../../ir/types.js';

/**
 * The field of the objects below `parent` in a URL that points at it (the other side of the
 * parent's relationship it follows), or null.
 */
export function linkToParent(parent: RouteParent, models: ReadonlyMap<string, Model>): string | null {
  return models.get(parent.model)!.relationships.find((r) => r.name === parent.field)?.inverse ?? null;
}
