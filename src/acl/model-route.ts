/**
 * The route whose x-ACL says who may view or change a model's objects anywhere: embedded in
 * another's answer, or re-linked by another's write (runtime/src/lib/http/relinks.ts). The
 * generated model carries it as `aclRoute` (src/plan/models/model-file.ts), and the ACL matrix
 * (./matrix.ts) decides a link's `update` by it, as the runtime does.
 */
import type { Model, Route, ServiceIR } from '../ir/types.js';

/**
 * What of that route decides: item rules (then collection rules) or collection rules, and its
 * x-ACL (null: admins only); and whether any route updates the model's objects (`updatable`), and
 * deletes them (`deletable`).
 */
export interface ModelRules {
  readonly kind: 'item' | 'collection';
  readonly acl: string | null;
  readonly updatable: boolean;
  readonly deletable: boolean;
}

/** `modelRoute` as the runtime takes it (`Model.aclRoute`): a singular route's rules are an item's. */
export function modelRules(ir: ServiceIR, model: Model): ModelRules | null {
  const route = modelRoute(ir, model);
  return (
    route && {
      kind: route.kind === 'collection' ? 'collection' : 'item',
      acl: route.acl,
      updatable: servedFor(ir, model, 'update'),
      deletable: servedFor(ir, model, 'delete'),
    }
  );
}

/**
 * Whether a route updates (a `PATCH` or `PUT` of an item, a singular or a collection) or deletes the
 * model's objects. Where none does, the API lets no one but admins do it: a write that would move
 * their links from another model's side (runtime/src/lib/http/relinks.ts), or a delete that would
 * take them with it (runtime/src/lib/http/cascades.ts), is theirs alone, whatever the x-ACL grants
 * (a settlement served with GET and DELETE only was once re-pointed at another member through
 * `PATCH /users/{username}` of its backref). A dict or list field's own route writes that field,
 * never a link.
 */
function servedFor(ir: ServiceIR, model: Model, permission: 'update' | 'delete'): boolean {
  return ir.routes.some(
    (r) => r.model === model.name && r.kind !== 'attribute' && r.operations.some((o) => o.permission === permission),
  );
}

/**
 * The top-level item route, else any route of one object (a nested item, a singular), else the
 * top-level collection, else the first route serving the model; null: none. A route of one object
 * first: its item rules decide on each object, where a collection's decide on none (a model served
 * only below a parent, `/projects/{id}/tasks/{tid}`, is as private as its item rules say).
 */
export function modelRoute(ir: ServiceIR, model: Model): Route | null {
  const serving = ir.routes.filter((r) => r.model === model.name && r.kind !== 'attribute');
  return (
    serving.find((r) => r.kind === 'item' && !r.parent) ??
    serving.find((r) => r.kind === 'item' || r.kind === 'singular') ??
    serving.find((r) => r.kind === 'collection' && !r.parent) ??
    serving[0] ??
    null
  );
}
