/**
 * Event handlers and field processors: the module that binds them to their models and types
 * them, and the user's stub of each handler and processor the schemas name.
 */
import { planned, type Artifact } from '../artifact.js';
import { handlerModule, processorModule } from '../shared/names.js';
import { templateSource as template } from '../views.js';
import { eventsView, handlerStubView, processorStubView } from './views.js';

export const events: Artifact = {
  name: 'events',
  files: ({ ir }) => [
    planned(
      'src/events.ts',
      'The event handlers and field processors of every model, and the types they are checked against.',
      template('events.ts', eventsView(ir)),
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
