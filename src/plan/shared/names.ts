/** Names of things in the generated project, derived once from the IR's names. */
import { kebab } from '../../ir/naming.js';
import type { Model, Route } from '../../ir/types.js';

export { kebab };

/** `AlienUser` → `alienUser` (variables, properties). */
export function camel(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
  const lower = joined.charAt(0).toLowerCase() + joined.slice(1);
  // An identifier never starts with a digit: `/2024/items` made `2024ItemsResource`, and generate stopped.
  return /^[0-9]/.test(lower) ? `_${lower}` : lower;
}

export function modelNames(model: Pick<Model, 'name'>) {
  const base = camel(model.name);
  return {
    file: kebab(model.name),
    variable: `${base}Model`,
    bodies: `${base}Bodies`,
    /** The object as answers show it, and a page of them (route response schemas). */
    response: `${base}Response`,
    page: `${base}Page`,
    /** The type of an event of this model, in src/events.ts. */
    event: `${model.name}Event`,
    repository: `${model.name}Repository`,
    property: base,
    create: `${model.name}Create`,
    update: `${model.name}Update`,
    /** The users' model: the caller as `request.user` holds them (model-file.ts `signedInType`). */
    signedIn: `SignedIn${model.name}`,
  };
}

/** The first path segment of a route: routes are grouped into one plugin per top-level resource. */
export function groupOf(route: Pick<Route, 'path'>): string {
  return route.path.split('/').filter(Boolean)[0] ?? 'root';
}

export function routeGroupNames(group: string) {
  return { file: kebab(group), plugin: `${camel(group)}Routes` };
}

export { withArticle } from '../../util/article.js';

/** The user-owned module of a `{{name}}` default value, below `src/`, without extension. */
export function defaultModule(name: string): string {
  return `custom/defaults/${kebab(name)}`;
}

/** The user-owned module of a `{{name}}` ACL principal, below `src/`, without extension. */
export function principalModule(name: string): string {
  return `custom/principals/${kebab(name)}`;
}

/** The user-owned module of an event handler, below `src/`, without extension. */
export function handlerModule(name: string): string {
  return `custom/handlers/${kebab(name)}`;
}

/** The user-owned module of a field processor, below `src/`, without extension. */
export function processorModule(name: string): string {
  return `custom/processors/${kebab(name)}`;
}

/** `set_item_owner` → `SetItemOwner`: the prefix of a user function's types in src/events.ts. */
export function pascal(name: string): string {
  const base = camel(name);
  return base.charAt(0).toUpperCase() + base.slice(1);
}

/** `a`, `a and b`, `a, b and c`: names in a sentence. */
export function andList(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
