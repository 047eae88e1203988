/** How the objects of a nested route point back at the parent item their URL names. */
import type { Action, Model, Route, RouteParent } from '../../ir/types.js';

/**
 * The field of the objects below `parent` in a URL that points at it (the other side of the
 * parent's relationship it follows), or null.
 */
export function linkToParent(parent: RouteParent, models: ReadonlyMap<string, Model>): string | null {
  return models.get(parent.model)!.relationships.find((r) => r.name === parent.field)?.inverse ?? null;
}

/** The link of a nested route's objects to the parent item its URL names (`club` below `/clubs/{id}/teams`). */
export function parentLinkOf(route: Route, model: Model): string | undefined {
  if (!route.parent || route.kind === 'attribute') return undefined;
  const parent = route.parent;
  return model.relationships.find((r) => r.target === parent.model && r.inverse === parent.field)?.name;
}

/**
 * A create below a parent whose link to it the model requires: the URL gives the link, so the
 * route's body schema and type leave it out (runtime `createdBelowBody`); undefined otherwise.
 */
export function requiredParentLink(route: Route, model: Model, action: Action): string | undefined {
  const link = action === 'create' ? parentLinkOf(route, model) : undefined;
  return link !== undefined && model.fields.some((f) => f.name === link && f.requiredOnCreate) ? link : undefined;
}
