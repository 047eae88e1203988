/**
 * The route whose x-ACL says who may view or change a model's objects anywhere: embedded in
 * another's answer, or re-linked by another's write (runtime/src/lib/http/relinks.ts). The
 * generated model carries it as `aclRoute` (src/plan/models/model-file.ts), and the ACL matrix
 * (./matrix.ts) decides a link's `update` by it, as the runtime does.
 */
import type { Model, Route, ServiceIR } from '../ir/types.js';

/** What of that route decides: item rules (then collection rules) or collection rules, and its x-ACL (null: admins only). */
export interface ModelRules {
  readonly kind: 'item' | 'collection';
  readonly acl: string | null;
}

/** `modelRoute` as the runtime takes it (`Model.aclRoute`): a singular route's rules are an item's. */
export function modelRules(ir: ServiceIR, model: Model): ModelRules | null {
  const route = modelRoute(ir, model);
  return route && { kind: route.kind === 'collection' ? 'collection' : 'item', acl: route.acl };
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
