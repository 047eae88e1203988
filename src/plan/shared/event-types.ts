/**
 * The outbox's event types of an API (the runtime's lib/outbox/): `<Model>.<action>` for each
 * change its routes can make — create (a POST on a collection), update (PATCH on an item or a
 * collection, PUT on a collection, a POST on a dict/list attribute), replace (PUT on an item),
 * delete (DELETE on an item or a collection) — and `<User>.register` with auth. The OpenAPI
 * document, the generated README and the generated types list the same ones.
 */
import type { Action, ServiceIR } from '../../ir/types.js';

export type EventVerb = 'create' | 'update' | 'replace' | 'delete' | 'register';

const VERB_OF: Partial<Record<Action, EventVerb>> = {
  create: 'create',
  update: 'update',
  update_many: 'update',
  replace: 'replace',
  delete: 'delete',
  delete_many: 'delete',
};

const ORDER: readonly EventVerb[] = ['create', 'update', 'replace', 'delete', 'register'];

/** By model, in the IR's order: the verbs its events can have (models no route changes have none). */
export function eventTypes(ir: ServiceIR): ReadonlyMap<string, readonly EventVerb[]> {
  const verbs = new Map<string, Set<EventVerb>>();
  const add = (model: string, verb: EventVerb) => verbs.set(model, (verbs.get(model) ?? new Set()).add(verb));
  for (const route of ir.routes)
    for (const operation of route.operations) {
      // A POST on an attribute changes the parent: an update of it.
      const verb = route.kind === 'attribute' && operation.action === 'create' ? 'update' : VERB_OF[operation.action];
      if (verb) add(route.model, verb);
    }
  if (ir.auth) add(ir.auth.userModel, 'register');
  return new Map(
    ir.models
      .filter((m) => verbs.has(m.name))
      .map((m) => [m.name, ORDER.filter((verb) => verbs.get(m.name)!.has(verb))] as const),
  );
}
