/**
 * In-process subscribers of committed events: their types (`src/committed.ts`), their bindings
 * (`src/subscribers.ts`), and the user's stub of each model whose objects the routes change.
 */
import { planned, type Artifact } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { committedStubs, committedView } from './views.js';

export const outbox: Artifact = {
  name: 'outbox',
  files: ({ ir }) => [
    planned(
      'src/committed.ts',
      'The events of committed changes, typed per model: what the subscribers of src/custom/events/ are checked against.',
      template('committed.ts', committedView(ir)),
    ),
    planned(
      'src/subscribers.ts',
      'The subscribers of src/custom/events/, bound to their models as the runtime delivers to them.',
      template('subscribers.ts', committedView(ir)),
    ),
    ...committedStubs(ir).map(({ path, view }) =>
      planned(
        path,
        `What runs after a change of ${view.article} is committed.`,
        template('committed-stub.ts', view),
        'user',
      ),
    ),
  ],
};
