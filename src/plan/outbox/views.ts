/**
 * Views of the in-process subscribers' files (the runtime's lib/outbox/committed.ts):
 * `src/committed.ts` (generated: each model's committed-event type and their union),
 * `src/subscribers.ts` (generated: the stubs bound to their models) and one user-owned stub per
 * model whose objects the routes change (`src/custom/events/<model>.ts`). The stubs import
 * committed.ts's types, and subscribers.ts imports the stubs: no import goes round.
 */
import type { ServiceIR } from '../../ir/types.js';
import { eventTypes } from '../shared/event-types.js';
import { isSecretField } from '../shared/field-types.js';
import { camel, modelNames, withArticle } from '../shared/names.js';
import { quote } from '../shared/literal.js';

/** The default export of a model's stub (src/custom/events/<model>.ts). */
export function subscriberName(model: string): string {
  return `${camel(model)}Subscriber`;
}

/** What src/committed.ts imports from the runtime. */
const RUNTIME_IMPORTS = new Set([
  'Subscribe',
  'EventData',
  'ChangeData',
  'ServiceEvent',
  'Database',
  'SubscriberContext',
]);

/** The models with committed events, in the IR's order, with what their files need. */
function committedModels(ir: ServiceIR) {
  return [...eventTypes(ir)]
    .map(([name, verbs]) => ({ model: ir.models.find((m) => m.name === name)!, verbs }))
    .filter(({ model }) => !model.internal)
    .map(({ model, verbs }) => {
      const names = modelNames(model);
      // A model named as what committed.ts imports from the runtime is imported under another name.
      const alias = RUNTIME_IMPORTS.has(model.name) ? `${model.name}Object` : null;
      const type = alias ?? model.name;
      const left = [
        ...new Set([...model.hiddenFields, ...model.fields.filter((f) => isSecretField(model, f)).map((f) => f.name)]),
      ];
      // With `_event_previous`, an update's and a replace's events carry `previous` and `changed`.
      const changes: readonly string[] = model.eventPrevious
        ? verbs.filter((verb) => verb === 'update' || verb === 'replace')
        : [];
      const typesOf = (of: readonly string[]) => of.map((verb) => quote(`${model.name}.${verb}`)).join(' | ');
      return {
        name: model.name,
        article: withArticle(model.name),
        file: names.file,
        property: names.property,
        stub: subscriberName(model.name),
        event: `${model.name}Committed`,
        types: typesOf(verbs.filter((verb) => !changes.includes(verb))),
        changeTypes: changes.length ? typesOf(changes) : null,
        // A field an update may change, for the stub's example.
        changedExample: model.fields.find((f) => !f.primaryKey && f.type !== 'relationship')?.name ?? model.primaryKey,
        firstType: `${model.name}.${verbs[0]!}`,
        // The object as an admin reads it: no secrets, no hidden fields (lib/outbox/event.ts).
        object: left.length ? `Omit<${type}, ${left.map(quote).join(' | ')}>` : type,
        alias,
      };
    });
}

export type CommittedModelView = ReturnType<typeof committedModels>[number];

export function committedView(ir: ServiceIR) {
  const models = committedModels(ir);
  return { models, any: models.length > 0, changes: models.some((m) => m.changeTypes !== null) };
}

/** The user's stub of each model with committed events. */
export function committedStubs(ir: ServiceIR) {
  return committedModels(ir).map((view) => ({ path: `src/custom/events/${view.file}.ts`, view }));
}
