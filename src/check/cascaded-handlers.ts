/**
 * Delete handlers that a cascading delete does not run. Deleting an object takes with it the
 * objects a relationship says so of (`ondelete: CASCADE`): each gets its `delete` event, but
 * their handlers do not run (as in Ramses, whose cascades were the database's). So what a
 * model's delete handlers keep for one object (a posting's count of applications) is not kept
 * when another model's delete takes its objects: a probe's count drifted that way. checks.ts
 * (SVC2095) says so where some route deletes the objects that cascade.
 */
import type { Model, Relationship, ServiceIR } from '../ir/types.js';
import { handlersOf } from './bulk-handlers.js';

export interface CascadedHandlers {
  /** The model whose delete cascades, and its link to the objects it takes. */
  readonly model: Model;
  readonly link: Relationship;
  readonly target: Model;
  /** The target's `before_delete` and `after_delete` handlers, in order. */
  readonly handlers: readonly string[];
}

export function cascadedHandlers(ir: ServiceIR): CascadedHandlers[] {
  const found: CascadedHandlers[] = [];
  for (const model of ir.models) {
    if (!deletedByARoute(ir, model)) continue;
    for (const link of model.relationships) {
      // The foreign key's rule, which the runtime follows (Ramses' own ondelete is not: SVC2069).
      if (link.onDelete !== 'cascade') continue;
      const target = ir.models.find((m) => m.name === link.target);
      if (!target) continue;
      const handlers = [
        ...new Set([...handlersOf(target, 'before', ['delete']), ...handlersOf(target, 'after', ['delete'])]),
      ];
      if (handlers.length) found.push({ model, link, target, handlers });
    }
  }
  return found;
}

/** Whether some route deletes objects of `model`, one or many. */
function deletedByARoute(ir: ServiceIR, model: Model): boolean {
  return ir.routes.some(
    (route) =>
      route.model === model.name &&
      route.kind !== 'attribute' &&
      route.operations.some((o) => o.action === 'delete' || o.action === 'delete_many'),
  );
}
