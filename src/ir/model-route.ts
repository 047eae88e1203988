/**
 * The route whose x-ACL says who may view or change a model's objects anywhere: embedded in
 * another's answer, re-linked by another's write (runtime/src/lib/http/relinks.ts), taken along by
 * another's delete (runtime/src/lib/http/cascades.ts). The generated model carries it as `aclRoute`
 * (src/plan/models/model-file.ts), and the ACL matrix (./matrix.ts) decides a link's `update` by
 * it, as the runtime does.
 */
import type { Acl, AclEntry, Model, Operation, Route, ServiceIR } from './types.js';

/** Item rules (then collection rules) or collection rules, and their x-ACL (null: admins only). */
export interface RouteRules {
  readonly kind: 'item' | 'collection';
  readonly acl: string | null;
}

/**
 * The rules that decide on the model's objects, and whether any route updates them (`updatable`) or
 * deletes them (`deletable`). Where the route that does is not the one whose rules decide (a
 * top-level route that only reads, a nested one that changes), its rules decide that:
 * `updateRules`, `deleteRules`.
 */
export interface ModelRules extends RouteRules {
  readonly updatable: boolean;
  readonly deletable: boolean;
  readonly updateRules?: RouteRules;
  readonly deleteRules?: RouteRules;
}

/** `modelRoute` as the runtime takes it (`Model.aclRoute`): a singular route's rules are an item's. */
export function modelRules(ir: ServiceIR, model: Model): ModelRules | null {
  const route = modelRoute(ir, model);
  if (!route) return null;
  const rules = rulesOf(route);
  const update = preferred(servingFor(ir, model, 'update'));
  const remove = preferred(servingFor(ir, model, 'delete'));
  return {
    ...rules,
    updatable: update !== null,
    deletable: remove !== null,
    ...(update && !sameRules(rulesOf(update), rules) ? { updateRules: rulesOf(update) } : {}),
    ...(remove && !sameRules(rulesOf(remove), rules) ? { deleteRules: rulesOf(remove) } : {}),
  };
}

/**
 * The lines of `acl` that decide under `kind`'s rules, in the order they are read: an item's item
 * rules, then its collection rules (which decide where no item rule does); a collection's own.
 */
export function decidingLines(acl: Acl, kind: RouteRules['kind']): readonly AclEntry[] {
  return kind === 'item' ? [...acl.item, ...acl.collection] : acl.collection;
}

function rulesOf(route: Route): RouteRules {
  return { kind: route.kind === 'collection' ? 'collection' : 'item', acl: route.acl };
}

function sameRules(a: RouteRules, b: RouteRules): boolean {
  return a.kind === b.kind && a.acl === b.acl;
}

/**
 * The routes that update (a `PATCH` or `PUT` of an item, a singular or a collection) or delete the
 * model's objects. Where none does, the API lets no one but admins do it: a write that would move
 * their links from another model's side, or a delete that would take them with it, is theirs
 * alone, whatever the x-ACL grants (a settlement served with GET and DELETE only was once
 * re-pointed at another member through `PATCH /users/{username}` of its backref). A dict or list
 * field's own route writes that field, never a link.
 */
function servingFor(ir: ServiceIR, model: Model, permission: Operation['permission']): Route[] {
  return serving(ir, model).filter((r) => r.operations.some((o) => o.permission === permission));
}

function serving(ir: ServiceIR, model: Model): Route[] {
  return ir.routes.filter((r) => r.model === model.name && r.kind !== 'attribute');
}

/**
 * The top-level item route, else any route of one object (a nested item, a singular), else the
 * top-level collection, else the first route serving the model; null: none. A route of one object
 * first: its item rules decide on each object, where a collection's decide on none (a model served
 * only below a parent, `/projects/{id}/tasks/{tid}`, is as private as its item rules say).
 */
export function modelRoute(ir: ServiceIR, model: Model): Route | null {
  return preferred(serving(ir, model));
}

function preferred(routes: readonly Route[]): Route | null {
  return (
    routes.find((r) => r.kind === 'item' && !r.parent) ??
    routes.find((r) => r.kind === 'item' || r.kind === 'singular') ??
    routes.find((r) => r.kind === 'collection' && !r.parent) ??
    routes[0] ??
    null
  );
}
