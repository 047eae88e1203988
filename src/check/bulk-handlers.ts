/**
 * Item handlers that a change of many objects does not run. A collection's `PATCH`/`PUT`
 * (`update_many`) and `DELETE` (`delete_many`) run the handlers listed for those actions, once for
 * the whole change, as Ramses did; not those of `update`, `replace` or `delete`. So a rule that a
 * `before_update` handler enforces (a graded submission stays as it is) holds for `PATCH
 * /submissions/5` and not for `PATCH /submissions?assignment=3`. checks.ts (SVC2083) says so,
 * unless the model lists handlers of its own for the bulk action in that phase (a probe's
 * `refuse_many` refused every bulk change, and was told to list the item handlers there too).
 */
import type { Action, Model, Route, ServiceIR } from '../ir/types.js';

/** The item actions whose handlers each bulk action leaves out. */
const ITEM_ACTIONS: Readonly<Record<'update_many' | 'delete_many', readonly Action[]>> = {
  update_many: ['update', 'replace'],
  delete_many: ['delete'],
};

export interface SkippedHandlers {
  readonly model: Model;
  readonly route: Route;
  readonly bulk: 'update_many' | 'delete_many';
  /** The methods the route declares for the bulk action (`PATCH`, `PUT`, `DELETE`), as declared. */
  readonly methods: readonly string[];
  readonly phase: 'before' | 'after';
  /** The handlers of the item actions that the bulk action does not list, in order. */
  readonly handlers: readonly string[];
}

export function skippedItemHandlers(ir: ServiceIR): SkippedHandlers[] {
  const found: SkippedHandlers[] = [];
  for (const route of ir.routes) {
    if (route.kind !== 'collection') continue;
    const model = ir.models.find((m) => m.name === route.model);
    if (!model) continue;
    for (const bulk of ['update_many', 'delete_many'] as const) {
      const methods = [...new Set(route.operations.filter((o) => o.action === bulk).map((o) => o.method))];
      if (!methods.length) continue;
      for (const phase of ['before', 'after'] as const) {
        const handlers = handlersOf(model, phase, ITEM_ACTIONS[bulk]);
        const run = new Set(handlersOf(model, phase, [bulk]));
        // Handlers of its own for the bulk action: its author wrote how a change of many keeps the rules.
        if (run.size) continue;
        const skipped = handlers;
        if (skipped.length) found.push({ model, route, bulk, methods, phase, handlers: skipped });
      }
    }
  }
  return found;
}

export function handlersOf(model: Model, phase: 'before' | 'after', actions: readonly Action[]): string[] {
  const names = model.eventHandlers
    .filter((binding) => binding.phase === phase && (actions as readonly string[]).includes(binding.action))
    .flatMap((binding) => binding.handlers);
  return [...new Set(names)];
}
