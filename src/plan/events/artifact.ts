/**
 * Event handlers and field processors: the types they are checked against, the module that binds
 * them to their models, and the user's stub of each handler and processor the schemas name.
 */
import { planned, type Artifact } from '../artifact.js';
import { handlerModule, processorModule } from '../shared/names.js';
import { templateSource as template } from '../views.js';
import { eventTypesView, handlerStubView, modelEventsView, processorStubView } from './views.js';

export const events: Artifact = {
  name: 'events',
  files: ({ ir }) => [
    planned(
      'src/events.ts',
      'The types the event handlers and field processors of every model are checked against.',
      template('events.ts', eventTypesView(ir)),
    ),
    planned(
      'src/model-events.ts',
      'The event handlers and field processors of every model, in the order they run.',
      template('model-events.ts', modelEventsView(ir)),
    ),
    ...ir.userCode.handlers.map((handler) =>
      planned(
        `src/${handlerModule(handler.name)}.ts`,
        `The ${handler.name} event handler.`,
        template('handler-stub.ts', handlerStubView(handler)),
        'user',
      ),
    ),
    ...ir.userCode.processors.map((processor) =>
      planned(
        `src/${processorModule(processor.name)}.ts`,
        `The ${processor.name} field processor.`,
        template('processor-stub.ts', processorStubView(processor)),
        'user',
      ),
    ),
  ],
};
